import { afterEach, describe, expect, it } from 'vitest';
import { HELD_CODE_ELEMENT_ID } from '../../src/api/page-data';
import { releaseHeldCode } from '../../src/app/held-code';

// A rendered page's preloads wait in an inert template until the entry runs (server/pages/); then they go
// to the head, where the browser fetches them.

const preloads = () => [...document.head.querySelectorAll('link[rel="modulepreload"]')].map((link) => link.getAttribute('href'));

afterEach(() => {
  document.head.querySelectorAll('link[rel="modulepreload"]').forEach((link) => link.remove());
  document.body.replaceChildren();
});

describe('the held code of a rendered page', () => {
  it('moves every held preload into the head, once, and leaves no template behind', () => {
    document.body.insertAdjacentHTML(
      'beforeend',
      `<div id="root"><main>rows</main></div><template id="${HELD_CODE_ELEMENT_ID}"><link rel="modulepreload" crossorigin href="/assets/app.js"><link rel="modulepreload" crossorigin href="/assets/screen.js"></template>`,
    );
    expect(preloads()).toEqual([]);

    releaseHeldCode(document);
    releaseHeldCode(document);

    expect(preloads()).toEqual(['/assets/app.js', '/assets/screen.js']);
    expect(document.getElementById(HELD_CODE_ELEMENT_ID)).toBeNull();
    expect(document.body.innerHTML).toBe('<div id="root"><main>rows</main></div>');
  });

  it('leaves a page without held code (the shell) as it is', () => {
    document.body.innerHTML = '<div id="root"></div>';
    releaseHeldCode(document);
    expect(preloads()).toEqual([]);
    expect(document.body.innerHTML).toBe('<div id="root"></div>');
  });
});
