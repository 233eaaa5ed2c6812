// The first screen paints without a stylesheet request: index.html's stylesheets go into the page itself
// as one <style> element, allowed by the CSP through its hash (no 'unsafe-inline'). Done once at start-up.
// Only the first screen's part goes into the head (first-screen-css.ts); the stylesheets themselves follow at the
// end of the body, where the rows of a rendered page come before them (docs/rendering.md, "A light first screen").
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { firstScreenCss } from './first-screen-css';

export interface InlinedTemplate {
  html: string;
  /** CSP sources for the inlined <style> (`'sha256-…'`). */
  styleHashes: string[];
}

const STYLESHEET_LINK = /<link\b[^>]*\brel="stylesheet"[^>]*>/gi;

/** `'sha256-…'` of a <style> element's text, as the CSP's style-src takes it. */
export function styleHash(css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;
}

/**
 * index.html with its same-origin stylesheet links replaced by one <style> where the first link was, holding the
 * first screen's rules; when rules were left out of it, the links move to the end of `<body>`, after the page's
 * root: a link there holds back neither the head nor the rows above it, and the page's code waits for it (a
 * script runs once the stylesheets before it are in), so what React draws has every rule. The files are the
 * build's, under /assets/ with a long cache life.
 */
export async function inlineStylesheets(template: string, clientDir: string): Promise<InlinedTemplate> {
  const links = [...template.matchAll(STYLESHEET_LINK)].map(([tag]) => ({ tag, href: /\bhref="(\/[^"]+\.css)"/i.exec(tag)?.[1] }));
  const local = links.filter((link): link is { tag: string; href: string } => link.href !== undefined && !link.href.startsWith('//'));
  if (local.length === 0) return { html: template, styleHashes: [] };
  const sheets = await Promise.all(local.map((link) => readFile(join(clientDir, link.href.slice(1)), 'utf8')));
  // `</style` cannot appear in built CSS except inside a string; refuse rather than let it end the element early.
  const whole = sheets.join('\n');
  if (/<\/style/i.test(whole)) return { html: template, styleHashes: [] };
  const { first, deferred } = firstScreenCss(whole);
  const bodyEnd = template.lastIndexOf('</body>');
  const css = deferred && bodyEnd !== -1 ? first : whole;
  let html = template;
  local.forEach((link, index) => {
    html = html.replace(link.tag, () => (index === 0 ? `<style>${css}</style>` : ''));
  });
  if (css !== whole) {
    const end = html.lastIndexOf('</body>');
    html = `${html.slice(0, end)}${local.map((link) => link.tag).join('')}${html.slice(end)}`;
  }
  return { html, styleHashes: [styleHash(css)] };
}
