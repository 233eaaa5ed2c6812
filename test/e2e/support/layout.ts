import type { Page } from '@playwright/test';

/** Something a person would see as broken layout: a box wider than its place, or text squeezed into a sliver. */
export interface LayoutProblem {
  kind: 'page wider than the window' | 'wider than its box' | 'sliver' | 'word broken';
  /** The element, as a person could find it: its tag, classes and the start of its text. */
  where: string;
  detail: string;
}

/**
 * Boxes that scroll sideways on purpose, at a readable scale, on a phone only (layout.css, insights.css):
 * the timeline, the insights chart and the header's links. Anything else wider than its box is a problem.
 */
const SIDEWAYS_ON_A_PHONE = ['.timeline', '.insights-chart__scroll', '.topbar nav'];

/** Narrower than this many of its letters' em, two words cannot share a line: '2 / running', 'Nothing / watched / yet.' (4.2 em). */
const SLIVER_EMS = 5;

/**
 * What is off in the page's layout as it is drawn now. An element is wider than its box when its content
 * (scrollWidth) passes its width (clientWidth); text cut on purpose with an ellipsis (a long name, shown in full
 * on focus) and what only assistive technology hears are left out. A sliver is text of two words or more laid
 * out one word a line in a box under 5 em wide (a column squeezed to its longest word); a broken word is a word of up to 16 letters split
 * across lines (ids and addresses, longer, may break).
 */
export function layoutProblems(page: Page): Promise<LayoutProblem[]> {
  return page.evaluate(
    ({ sidewaysOnAPhone, SLIVER_EMS }) => {
      const problems: LayoutProblem[] = [];
      const phone = window.innerWidth <= 720;
      const where = (el: Element) => {
        const classes = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
        const text = el.textContent.replace(/\s+/g, ' ').trim().slice(0, 60);
        return `${el.tagName.toLowerCase()}${classes}${text ? ` “${text}”` : ''}`;
      };
      // Said only to assistive technology: clipped to a pixel (.visually-hidden and the phone's hidden headers).
      const unseen = (el: Element) => {
        for (let node: Element | null = el; node; node = node.parentElement) {
          const style = getComputedStyle(node);
          if (style.display === 'none' || style.visibility === 'hidden') return true;
          if (style.getPropertyValue('clip') !== 'auto' && style.position === 'absolute') return true;
        }
        return false;
      };
      const root = document.documentElement;
      if (root.scrollWidth > root.clientWidth) {
        problems.push({ kind: 'page wider than the window', where: 'html', detail: `${root.scrollWidth} px in ${root.clientWidth}` });
      }
      for (const el of document.body.querySelectorAll('*')) {
        // An SVG's shapes are drawn in its own coordinates; the svg element itself is measured.
        if (el instanceof SVGElement && !(el instanceof SVGSVGElement)) continue;
        if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1) continue;
        if (phone && sidewaysOnAPhone.some((selector) => el.matches(selector))) continue;
        const style = getComputedStyle(el);
        if (style.textOverflow === 'ellipsis' && style.overflowX !== 'visible') continue;
        if (unseen(el)) continue;
        problems.push({ kind: 'wider than its box', where: where(el), detail: `${el.scrollWidth} px in ${el.clientWidth}` });
      }
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      const lineCount = (rects: DOMRectList) => new Set([...rects].filter((r) => r.width > 0).map((r) => Math.round(r.top / 3))).size;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        const words = text.trim().split(/\s+/).filter(Boolean);
        const parent = node.parentElement;
        if (words.length === 0 || !parent || parent.closest('svg, pre, textarea, script, style, option') || unseen(parent)) continue;
        range.selectNodeContents(node);
        const lines = lineCount(range.getClientRects());
        if (lines < 2) continue;
        // The block the text is laid out in (a cell, a paragraph), not an inline element around it.
        let block: Element = parent;
        while (block.parentElement && /^(inline|contents)$/.test(getComputedStyle(block).display)) block = block.parentElement;
        const box = block.getBoundingClientRect().width;
        const em = parseFloat(getComputedStyle(parent).fontSize);
        if (words.length >= 2 && lines >= words.length && box < SLIVER_EMS * em) {
          problems.push({ kind: 'sliver', where: where(parent), detail: `${words.length} words on ${lines} lines, ${Math.round(box)} px wide` });
          continue;
        }
        // A short word split across lines: its box is narrower than the word (a hyphenated word may break after a hyphen).
        let offset = 0;
        for (const word of words.flatMap((w) => w.split(/(?<=-)/))) {
          const start = text.indexOf(word, offset);
          offset = start + word.length;
          if (word.length > 16) continue;
          range.setStart(node, start);
          range.setEnd(node, offset);
          if (lineCount(range.getClientRects()) > 1) {
            problems.push({
              kind: 'word broken',
              where: where(parent),
              detail: `“${word}” split across lines in ${Math.round(parent.getBoundingClientRect().width)} px`,
            });
            break;
          }
        }
      }
      return problems;
    },
    { sidewaysOnAPhone: SIDEWAYS_ON_A_PHONE, SLIVER_EMS },
  );
}
