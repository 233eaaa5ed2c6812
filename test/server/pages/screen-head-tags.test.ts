import { describe, expect, it } from 'vitest';
import { screenSources } from '../../../src/entry-server';
import { KEY_SCREEN, screenHeadTags, type ClientManifest } from '../../../server/pages/server-render';

// What a server-rendered page's head preloads: the screen's chunks and, for a project, the timeline's too,
// which its HTML shows at once and which the browser must have before it takes that HTML over.

const TEMPLATE = '<!doctype html><html><head><script type="module" crossorigin src="/assets/index.js"></script></head><body></body></html>';

/** A manifest with a chunk for every source a screen names (each importing the entry, which index.html loads already). */
function manifestFor(sources: Readonly<Record<string, readonly string[]>>): ClientManifest {
  const manifest: ClientManifest = {
    'index.html': { file: 'assets/index.js' },
    '_shared.js': { file: 'assets/shared.js', imports: ['index.html'], css: ['assets/shared.css'] },
  };
  for (const source of Object.values(sources).flat()) {
    const name = source.split('/').at(-1)!.replace('.tsx', '');
    manifest[source] = { file: `assets/${name}.js`, imports: ['index.html', '_shared.js'] };
  }
  return manifest;
}

describe('the head tags of a server-rendered screen', () => {
  it('preload a project’s screen, what it imports and its timeline, and nothing index.html loads already', () => {
    expect(screenSources.project).toContain('src/screens/project/project-timeline.tsx');
    const tags = screenHeadTags(manifestFor(screenSources), TEMPLATE, screenSources)('project');
    const preloaded = [...tags.matchAll(/rel="modulepreload" crossorigin href="([^"]+)"/g)].map((match) => match[1]);
    expect(preloaded.sort()).toEqual(['/assets/project-screen.js', '/assets/project-timeline.js', '/assets/shared.js']);
    expect(tags).toContain('<link rel="stylesheet" crossorigin href="/assets/shared.css">');
  });

  it('preload no timeline for a screen that shows none', () => {
    const tags = screenHeadTags(manifestFor(screenSources), TEMPLATE, screenSources)('operation');
    expect(tags).toContain('/assets/operation-detail-screen.js');
    expect(tags).not.toContain('timeline');
  });

  it('preload the key screen for a signed-out page (it is not in the first load)', () => {
    const tags = screenHeadTags(manifestFor(screenSources), TEMPLATE, screenSources)(KEY_SCREEN);
    expect(tags).toContain('/assets/sign-in-screen.js');
  });

  it('refuse to start with a build that lacks a screen’s code', () => {
    const manifest = manifestFor(screenSources);
    delete manifest['src/screens/project/project-timeline.tsx'];
    expect(() => screenHeadTags(manifest, TEMPLATE, screenSources)).toThrow(/has no src\/screens\/project\/project-timeline\.tsx/);
  });
});
