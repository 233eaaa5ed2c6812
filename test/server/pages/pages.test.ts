import { describe, expect, it } from 'vitest';
import { parsePageData, serializePageData, type PageData } from '../../../src/api/page-data';
import { sameOriginPath } from '../../../server/http/paths';
import { injectPage, splitPage } from '../../../server/pages/template';

const TEMPLATE = '<!doctype html><html><head><title>t</title></head><body><div id="root"><!--app-html--></div></body></html>';

describe('the page data block', () => {
  const hostile: PageData = {
    session: { signedIn: true, fingerprint: 'fp', keyKind: 'personal', remembered: false },
    signIn: { problem: { kind: 'other', message: '</script><script>alert(1)</script> <!-- \u2028\u2029 & done' }, returnTo: '/' },
  };

  it('escapes <, >, &, U+2028 and U+2029 so nothing can end or bend the block, and reads back the same value', () => {
    const text = serializePageData(hostile);

    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(parsePageData(text)).toEqual(hostile);
  });

  it('goes into the head as a JSON block, never a script the CSP would have to allow, and the app HTML into the root', () => {
    const html = injectPage(TEMPLATE, hostile, '<main>rendered</main>');

    expect(html).toContain('<script type="application/json" id="ops-console-data">{"session":');
    expect(html.indexOf('ops-console-data')).toBeLessThan(html.indexOf('</head>'));
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('<div id="root"><main>rendered</main></div>');
  });

  it('keeps the session of a block whose rendered part is broken: the page is then rendered in the browser, not hydrated', () => {
    const data = parsePageData(JSON.stringify({ ...hostile, queries: { queries: 'not a cache' }, renderedAt: 1 }));

    expect(data).toEqual(hostile);
  });

  it('cuts a streamed page where the app goes: the head (its CSS, no code) first, then the app, the data block and last the code, its preloads held when rendered', () => {
    const template = TEMPLATE.replace(
      '</head>',
      '<script type="module" crossorigin src="/assets/index.js"></script><link rel="modulepreload" crossorigin href="/assets/a.js"><style>p{}</style></head>',
    );
    const { head, finish } = splitPage(template, '<link rel="stylesheet" href="/assets/s.css"><link rel="modulepreload" href="/assets/s.js">');
    const rest = finish(hostile, '<main>rendered</main>');

    // The browser paints the rows before it fetches or compiles a module: every one comes after them.
    expect(head).toBe('<!doctype html><html><head><title>t</title><style>p{}</style><link rel="stylesheet" href="/assets/s.css"></head><body><div id="root">');
    expect(rest.startsWith('<main>rendered</main></div><script type="application/json" id="ops-console-data">')).toBe(true);
    // Its preloads held in an inert template (the browser's preload scanner reads ahead): nothing fetched before the rows paint.
    expect(
      rest.endsWith(
        '</script><script type="module" crossorigin src="/assets/index.js"></script><template id="ops-console-code"><link rel="modulepreload" crossorigin href="/assets/a.js"><link rel="modulepreload" href="/assets/s.js"></template></body></html>',
      ),
    ).toBe(true);
    expect(parsePageData(/<script type="application\/json"[^>]*>(\{.*?\})<\/script>/.exec(rest)?.[1])).toEqual(hostile);

    // The shell shows nothing without its code: its preloads go as they are.
    expect(
      finish(hostile).endsWith(
        '</script><script type="module" crossorigin src="/assets/index.js"></script><link rel="modulepreload" crossorigin href="/assets/a.js"><link rel="modulepreload" href="/assets/s.js"></body></html>',
      ),
    ).toBe(true);
  });

  it('reads a missing or broken block as signed out', () => {
    expect(parsePageData(undefined).session.signedIn).toBe(false);
    expect(parsePageData('{"session":{"signedIn":"yes"}}').session.signedIn).toBe(false);
    expect(parsePageData('not json').session.signedIn).toBe(false);
  });
});

describe('a path to go back to after signing in', () => {
  it.each([
    ['/projects/p-1?status=failed', '/projects/p-1?status=failed'],
    ['//evil.example/x', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example/', '/'],
    ['/a/../../b', '/b'],
    ['', '/'],
  ])('%s → %s', (target, expected) => {
    expect(sameOriginPath(target)).toBe(expected);
  });

  // Each of these becomes `//evil.example` (another host to a browser) once its dot segments are resolved.
  it.each([
    '/.//evil.example',
    '/..//evil.example',
    '/a/..//evil.example',
    '/%2e//evil.example',
    '/.%2E//evil.example',
    '/./\\evil.example',
    '/.///evil.example/x',
    '/\t/./evil.example',
    '/.//evil.example?x=//y#//z',
  ])('keeps %s on this origin after normalising it', (target) => {
    const path = sameOriginPath(target);
    expect(path).toMatch(/^\/(?![/\\])/);
    expect(new URL(path, 'http://console.invalid').origin).toBe('http://console.invalid');
  });
});
