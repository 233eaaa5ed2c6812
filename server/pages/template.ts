// index.html as every page's template: the per-request data block (src/api/page-data.ts) at the end of
// `<head>`, the rendered screen in the root, and for a streamed page the template cut where the screen goes.
import { HELD_CODE_ELEMENT_ID, PAGE_DATA_ELEMENT_ID, serializePageData, type PageData } from '../../src/api/page-data';

/** Where the rendered app goes in index.html. */
export const APP_HTML_MARKER = '<!--app-html-->';

export function dataBlock(data: PageData): string {
  return `<script type="application/json" id="${PAGE_DATA_ELEMENT_ID}">${serializePageData(data)}</script>`;
}

/** index.html with the data block at the end of `<head>` (before the app's module script runs) and the app's HTML in its root. */
export function injectPage(template: string, data: PageData, appHtml = ''): string {
  const head = template.indexOf('</head>');
  if (head === -1) throw new Error('index.html has no </head>');
  const withData = `${template.slice(0, head)}${dataBlock(data)}${template.slice(head)}`;
  return withData.replace(APP_HTML_MARKER, () => appHtml);
}

/**
 * index.html cut where the app's HTML goes: the head part (with `headTags` at the end of `<head>`, less
 * the page's code) to send at once, and functions finishing the page with the app's HTML, then the data block
 * and the code (the module script and every modulepreload) at the end of `<body>`.
 */
export function splitPage(template: string, headTags: string): SplitPage {
  const key = `${headTags}\u0000${template}`;
  let split = splits.get(key);
  if (!split) {
    // The template and a screen's tags are the same on every request: cut once, not per render.
    if (splits.size >= MAX_CACHED_SPLITS) splits.clear();
    split = cutPage(template, headTags);
    splits.set(key, split);
  }
  return split;
}

interface SplitPage {
  head: string;
  /** The rendered screen's HTML and the template up to the data block: sent before the data block is serialised. */
  screen: (appHtml: string) => string;
  /** The data block, then the page's code (held when the screen was rendered), and the page's end. */
  rest: (data: PageData, rendered: boolean) => string;
  /** The whole body at once: `screen` and `rest` (the shell's, with no app HTML). */
  finish: (data: PageData, appHtml?: string) => string;
}

const MAX_CACHED_SPLITS = 64;
/** The app's module script and the modulepreload links (index.html's and the screen's), as Vite and screenHeadTags write them. */
const MODULE_TAG = /<script type="module"[^>]*><\/script>|<link rel="modulepreload"[^>]*>/g;
const MODULE_SCRIPT = /^<script/;
const splits = new Map<string, SplitPage>();

function cutPage(template: string, headTags: string): SplitPage {
  const marker = template.indexOf(APP_HTML_MARKER);
  const headEnd = template.indexOf('</head>');
  const bodyEnd = template.lastIndexOf('</body>');
  if (marker === -1 || headEnd === -1 || bodyEnd < marker) throw new Error('index.html needs </head>, the app marker and </body>, in that order');
  const tail = template.slice(marker + APP_HTML_MARKER.length);
  const tailBodyEnd = bodyEnd - marker - APP_HTML_MARKER.length;
  // The page's code goes after the screen's HTML: the browser paints the rows before it fetches and compiles
  // any module (with them in the head, it compiled 23 modules while parsing the rows, and painted at 3.7–5×
  // the static page's time; at the end, 2.0–2.1×). The CSS stays in the head: the first paint needs it.
  let script = '';
  let preloads = '';
  const head = `${template.slice(0, headEnd)}${headTags}${template.slice(headEnd, marker)}`.replace(MODULE_TAG, (tag) => {
    if (MODULE_SCRIPT.test(tag)) script += tag;
    else preloads += tag;
    return '';
  });
  // Rendered rows paint without any code, and the browser's preload scanner finds links wherever they are
  // in what has arrived: a rendered page holds its preloads in an inert template until its entry runs
  // (app/held-code.ts). The same rendered project page served as a file, 15 loads each: first row at 307 ms
  // with its 29 preloads, 190 ms held (158 with none), the static page of bench/first-row.ts 153 ms.
  // The shell needs its code to show anything: its preloads go as they are.
  const held = `${script}<template id="${HELD_CODE_ELEMENT_ID}">${preloads}</template>`;
  const beforeData = tail.slice(0, tailBodyEnd);
  const end = tail.slice(tailBodyEnd);
  const screen = (appHtml: string) => `${appHtml}${beforeData}`;
  const rest = (data: PageData, rendered: boolean) => `${dataBlock(data)}${rendered ? held : script + preloads}${end}`;
  return { head, screen, rest, finish: (data, appHtml = '') => `${screen(appHtml)}${rest(data, appHtml !== '')}` };
}

/** Text safe inside a double-quoted HTML attribute. */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
