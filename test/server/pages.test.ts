import { describe, expect, it } from 'vitest';
import { parsePageData, serializePageData, type PageData } from '../../src/api/page-data';
import { injectPage, sameOriginPath } from '../../server/pages';

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
});
