// The first screen's CSS (docs/rendering.md, "A light first screen"): the page's head carries the built stylesheet
// less the rules for what no rendered page shows before someone acts (dialogs, the filters' open lists, the watch
// list the browser alone keeps, screens the server never renders); the whole stylesheet follows the rows as a file
// of its own. Every rule not named here stays in the head, so a rule added later is on the first screen until
// someone moves it here: a missing rule would show an unstyled part, an extra one only costs its bytes.

/**
 * Classes whose rules wait for the whole stylesheet: a rule goes only when every selector of its list names one of
 * them (a name, or a name and its BEM elements and modifiers: `modal` covers `modal__actions`, `modal--wide`).
 */
export const LATER_CLASSES: readonly string[] = [
  // Dialogs open on a click, long after the stylesheet is in.
  'modal',
  'action-dialog',
  'secret-dialog',
  'shortcuts',
  'copy-button__manual',
  // The API keys screen is drawn by the browser (docs/rendering.md, "Left to the browser").
  'api-keys',
  'current-key',
  'create-key',
  'keys-table',
  // A filter's list is inside a closed <details> until it is opened.
  'multi-select__popup',
  'multi-select__find',
  'multi-select__list',
  'multi-select__checks',
  'multi-select__option',
  'multi-select__check-option',
  'multi-select__check',
  'multi-select__none',
  // The watch list lives in the browser alone: the server renders the panel empty.
  'watch-panel__fold',
  'watch-panel__body',
  'watch-panel__hint',
  'watch-panel__clear',
  'watch-groups',
  'watch-group',
  'watch-ops',
  'watch-op',
];

export interface SplitCss {
  /** What the head inlines: the stylesheet less the rules of LATER_CLASSES, in the same order. */
  first: string;
  /** Whether any rule was left out (else the head's CSS is the whole stylesheet and no file need follow). */
  deferred: boolean;
}

const CLASS_NAME = /\.(-?[_a-zA-Z][\w-]*)/g;

function later(className: string, names: ReadonlySet<string>): boolean {
  if (names.has(className)) return true;
  // `block__element`, `block--modifier`, `block__element--modifier`: the block or the element is named.
  const element = /^(.*?)(?:--[\w-]*)$/.exec(className)?.[1];
  if (element && names.has(element)) return true;
  const block = /^(.*?)__/.exec(className)?.[1];
  return block !== undefined && names.has(block);
}

/** Splits a selector list at its top-level commas (not those inside `:is(…)`, `:has(…)`, strings or brackets). */
function selectorsOf(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  return parts;
}

/** Whether every selector of a rule's list names a later class. */
export function isLaterRule(selectorList: string, names: ReadonlySet<string> = new Set(LATER_CLASSES)): boolean {
  return selectorsOf(selectorList).every((selector) => [...selector.matchAll(CLASS_NAME)].some(([, name]) => name !== undefined && later(name, names)));
}

/** The end of the block whose `{` is at `open` (strings and comments skipped), just past its `}`. */
function blockEnd(css: string, open: number): number {
  let depth = 0;
  for (let i = open; i < css.length; i++) {
    const c = css[i];
    if (c === '"' || c === "'") {
      for (i++; i < css.length && css[i] !== c; i++) if (css[i] === '\\') i++;
    } else if (c === '/' && css[i + 1] === '*') {
      i = css.indexOf('*/', i + 2);
      if (i === -1) break;
      i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  throw new Error('The stylesheet has an unclosed block');
}

/** Where the next `{` or `;` is at this level (a statement such as `@import …;` ends at `;`). */
function statementEnd(css: string, from: number): { at: number; kind: '{' | ';' } | undefined {
  for (let i = from; i < css.length; i++) {
    const c = css[i];
    if (c === '"' || c === "'") {
      for (i++; i < css.length && css[i] !== c; i++) if (css[i] === '\\') i++;
    } else if (c === '/' && css[i + 1] === '*') {
      i = css.indexOf('*/', i + 2);
      if (i === -1) return undefined;
      i++;
    } else if (c === '{' || c === ';') return { at: i, kind: c };
  }
  return undefined;
}

/** Conditional group rules whose blocks hold rules (a rule inside is kept or left out by itself). */
const GROUP_RULE = /^@(media|supports|layer|container)\b/i;

function filterRules(css: string, names: ReadonlySet<string>): { kept: string; dropped: boolean } {
  let kept = '';
  let dropped = false;
  let at = 0;
  while (at < css.length) {
    const next = statementEnd(css, at);
    if (!next) {
      kept += css.slice(at);
      break;
    }
    if (next.kind === ';') {
      kept += css.slice(at, next.at + 1);
      at = next.at + 1;
      continue;
    }
    const prelude = css.slice(at, next.at);
    const end = blockEnd(css, next.at);
    const trimmed = prelude.trim();
    if (GROUP_RULE.test(trimmed)) {
      const inner = filterRules(css.slice(next.at + 1, end - 1), names);
      dropped ||= inner.dropped;
      // A group left with no rule goes too.
      if (inner.kept.trim() !== '') kept += `${prelude}{${inner.kept}}`;
    } else if (!trimmed.startsWith('@') && isLaterRule(trimmed, names)) {
      dropped = true;
    } else {
      kept += css.slice(at, end);
    }
    at = end;
  }
  return { kept, dropped };
}

/** The head's part of a stylesheet: its rules in order, less those for LATER_CLASSES alone. */
export function firstScreenCss(css: string, names: readonly string[] = LATER_CLASSES): SplitCss {
  const { kept, dropped } = filterRules(css, new Set(names));
  return { first: kept, deferred: dropped };
}
