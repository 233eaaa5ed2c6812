export type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/**
 * A server-rendered page can be typed in, and its boxes ticked, before React takes it over (early-clicks.ts
 * holds its buttons). React leaves what a control holds as it is while it hydrates, but its state still has the
 * server's value: the list is not filtered by what was chosen, and the control's next render (or the control
 * that replaces it once the script runs, such as a popup in place of a list of checkboxes) puts the server's
 * value back. This notes what each control of `container` was given before then, and once React has taken the
 * page over gives it to the page (what was changed before this runs at all is found by comparing each control
 * of such a form with what the HTML gave it):
 *
 * - a named control of a GET form that sends to this page (the history's filters): the form's fields are the
 *   address, so the page goes to the address the form would send now, read by name from every control of the
 *   form as the person left it (as if they had pressed its submit button), as one new history entry;
 * - any other text field or list: to React, as the browser would have (an `input` event for a text field,
 *   `change` for a list), so the screen acts on it.
 *
 * `go` moves the page to an address of its own (by default as the router follows Back and Forward).
 */
export function noteEarlyEdits(container: HTMLElement, go?: (href: string) => void): { replay: () => Promise<void> } {
  const edits = new Map<Field, string[]>();
  /** Each edited GET form's address as it would send it after its last edit: the controls may be gone by then. */
  const sent = new Map<HTMLFormElement, string>();
  const note = (event: Event) => {
    const field = event.target;
    if (!(field instanceof HTMLInputElement || field instanceof HTMLSelectElement || field instanceof HTMLTextAreaElement)) return;
    if (!container.contains(field)) return;
    const form = field.form;
    if (form && field.name && isOwnGetForm(form)) {
      sent.set(form, addressOf(form));
      return;
    }
    if (field instanceof HTMLSelectElement || field instanceof HTMLTextAreaElement || TEXT_TYPES.has(field.type)) edits.set(field, valueOf(field));
  };
  // What was changed before even this script ran (the page's code was slow to arrive) raised no event it heard.
  for (const form of container.querySelectorAll('form')) if (isOwnGetForm(form) && changedSinceSent(form)) sent.set(form, addressOf(form));
  container.addEventListener('input', note, true);
  container.addEventListener('change', note, true);
  return {
    replay: async () => {
      container.removeEventListener('input', note, true);
      container.removeEventListener('change', note, true);
      const addresses = [...sent.values()];
      const fields = [...edits];
      sent.clear();
      edits.clear();
      // Most pages are taken over before anything is typed: the code that hands edits over loads only when there are some.
      if (addresses.length === 0 && fields.length === 0) return;
      const { replayEdits } = await import('./early-edits-replay');
      replayEdits(addresses, fields, go);
    },
  };
}

/** A form that sends to this very page with GET: what it sends is this page's address, so the page can follow it. */
function isOwnGetForm(form: HTMLFormElement): boolean {
  // Read as attributes: a control named `action` (the history's Action boxes) hides the form's own property.
  const method = (form.getAttribute('method') ?? 'get').toLowerCase();
  return method === 'get' && new URL(form.getAttribute('action') ?? '', window.location.href).pathname === window.location.pathname;
}

/** Whether a control of `form` holds other than the server's HTML gave it (a box ticked, a choice, text). */
function changedSinceSent(form: HTMLFormElement): boolean {
  return [...form.elements].some((control) => {
    if (control instanceof HTMLInputElement) {
      return control.type === 'checkbox' || control.type === 'radio' ? control.checked !== control.defaultChecked : control.value !== control.defaultValue;
    }
    if (control instanceof HTMLTextAreaElement) return control.value !== control.defaultValue;
    if (control instanceof HTMLSelectElement) {
      if (control.multiple) return [...control.options].some((option) => option.selected !== option.defaultSelected);
      // A single choice with none marked in the HTML starts on its first.
      const initial = [...control.options].findIndex((option) => option.defaultSelected);
      return control.selectedIndex !== Math.max(initial, 0);
    }
    return false;
  });
}

/**
 * The address `form` sends now: this page's, its own fields replaced by theirs (every name any of its controls
 * has, so a box unticked leaves the address; an empty field is not sent), other parameters kept.
 */
function addressOf(form: HTMLFormElement): string {
  const params = new URLSearchParams(window.location.search);
  for (const control of form.elements) {
    const name = control.getAttribute('name');
    if (name) params.delete(name);
  }
  for (const [name, value] of new FormData(form)) if (typeof value === 'string' && value !== '') params.append(name, value);
  const query = params.toString();
  return query ? `${window.location.pathname}?${query}` : window.location.pathname;
}

/** Fields whose value is text (a checkbox or a radio button is a click, which early-clicks.ts does not hold either). */
const TEXT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'number', 'password', 'date', 'datetime-local', 'time', 'month', 'week']);

function valueOf(field: Field): string[] {
  return field instanceof HTMLSelectElement ? [...field.selectedOptions].map((option) => option.value) : [field.value];
}
