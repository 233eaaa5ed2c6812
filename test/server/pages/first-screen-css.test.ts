import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstScreenCss, isLaterRule } from '../../../server/pages/first-screen-css';
import { inlineStylesheets, styleHash } from '../../../server/pages/inline-css';

// The head's CSS (docs/rendering.md, "A light first screen"): the rules of what no rendered page shows before someone
// acts wait for the whole stylesheet, which follows the rows; everything else stays in the head, in its order.

const CSS = [
  ':root{--x:"a{b}"}',
  '.data-table td{padding:0}',
  '.modal{display:grid}',
  '.modal__actions,.modal h2{gap:1px}',
  '.truncate:focus-visible,.modal h2:focus-visible{outline:0}',
  '.multi-select__button{color:red}',
  '.multi-select__option--active{color:blue}',
  '@media (max-width:720px){.watch-op{margin:0}.topbar{display:block}}',
  '@media (prefers-color-scheme:dark){.watch-op__line{color:#fff}}',
  '@keyframes spin{to{transform:rotate(1turn)}}',
].join('');

describe("the first screen's CSS", () => {
  it('leaves out the rules whose every selector names a later class, and keeps the rest in order', () => {
    const { first, deferred } = firstScreenCss(CSS);

    expect(deferred).toBe(true);
    expect(first).toBe(
      [
        ':root{--x:"a{b}"}',
        '.data-table td{padding:0}',
        '.truncate:focus-visible,.modal h2:focus-visible{outline:0}',
        '.multi-select__button{color:red}',
        '@media (max-width:720px){.topbar{display:block}}',
        '@keyframes spin{to{transform:rotate(1turn)}}',
      ].join(''),
    );
  });

  it('reads a class by its block and element: a modifier of a later element is later, a sibling element is not', () => {
    expect(isLaterRule('.watch-op__dismiss:hover')).toBe(true);
    expect(isLaterRule(':is(li:has(:focus-visible)>.watch-group__title,li:has(:focus-visible)>.watch-op__where)')).toBe(true);
    expect(isLaterRule('.watch-panel')).toBe(false);
    expect(isLaterRule('.history__shortcuts')).toBe(false);
    expect(isLaterRule('.copy-button')).toBe(false);
  });

  it('inlines the first part under its hash and moves the stylesheet after the root, where the rows come first', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'first-screen-css-'));
    try {
      await mkdir(join(dir, 'assets'));
      await writeFile(join(dir, 'assets', 'boot.css'), CSS);
      const link = '<link rel="stylesheet" crossorigin href="/assets/boot.css">';
      const { html, styleHashes } = await inlineStylesheets(`<html><head>${link}</head><body><div id="root"><!--app-html--></div></body></html>`, dir);

      const { first } = firstScreenCss(CSS);
      expect(html).toBe(`<html><head><style>${first}</style></head><body><div id="root"><!--app-html--></div>${link}</body></html>`);
      expect(styleHashes).toEqual([styleHash(first)]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
