import type { Field } from './early-edits';

// The edits early-edits.ts noted on a server-rendered page, handed to the page once React has taken it over:
// loaded only when there are some.

/** Goes to each address an edited GET form would send now, then gives each other edited field its value, through React. */
export function replayEdits(addresses: readonly string[], fields: readonly (readonly [Field, string[]])[], go: (href: string) => void = followAddress): void {
  for (const href of addresses) if (!sameAddress(href, `${window.location.pathname}${window.location.search}`)) go(href);
  for (const [field, value] of fields) if (field.isConnected && !field.disabled) tellReact(field, value);
}

/** The same page and the same parameters, in whatever order. */
function sameAddress(a: string, b: string): boolean {
  const sorted = (href: string) => {
    const url = new URL(href, 'http://console.invalid');
    const params = [...url.searchParams].sort(([x, xv], [y, yv]) => x.localeCompare(y) || xv.localeCompare(yv));
    return `${url.pathname}?${new URLSearchParams(params).toString()}`;
  };
  return sorted(a) === sorted(b);
}

/** A new history entry the router follows as it follows Back and Forward (it reads the address on `popstate`). */
function followAddress(href: string): void {
  window.history.pushState(null, '', href);
  window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
}

function tellReact(field: Field, value: readonly string[]): void {
  if (field instanceof HTMLSelectElement) {
    // A render since may have put the server's choice back; React reads the list's choice on `change`.
    for (const option of field.options) option.selected = value.includes(option.value);
    field.dispatchEvent(new Event('change', { bubbles: true }));
    return;
  }
  const typed = value[0] ?? '';
  if (typed === field.defaultValue) return;
  // React fires onChange for a text field only when its value differs from the last one it saw, and it notes
  // the value a field holds as it hydrates it. So the field first goes back to what the server sent, through
  // its own setter (which React follows), and an input event makes React hydrate it now if it has not yet (a
  // screen's part behind a Suspense boundary is taken over after the rest): React then holds the server's
  // value. The typed value comes back through the element's setter (which React does not follow), and its
  // input event is a change React acts on.
  const prototype = field instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  field.value = field.defaultValue;
  field.dispatchEvent(new Event('input', { bubbles: true }));
  Reflect.set(prototype, 'value', typed, field);
  field.dispatchEvent(new Event('input', { bubbles: true }));
}
