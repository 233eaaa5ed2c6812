type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/**
 * A server-rendered page can be typed in before React takes it over (early-clicks.ts holds its buttons).
 * React leaves what a field holds as it is while it hydrates, but its state still has the server's value:
 * the list is not filtered by what was typed, and the field's next render puts the server's value back.
 * This notes what each field of `container` was given before then, and once React has taken the page over
 * gives it to React as the browser would have (an `input` event for a text field, `change` for a list), so
 * the screen acts on it.
 */
export function noteEarlyEdits(container: HTMLElement): { replay: () => void } {
  const edits = new Map<Field, string[]>();
  const note = (event: Event) => {
    const field = event.target;
    if (field instanceof HTMLSelectElement || field instanceof HTMLTextAreaElement || (field instanceof HTMLInputElement && TEXT_TYPES.has(field.type))) {
      if (container.contains(field)) edits.set(field, valueOf(field));
    }
  };
  container.addEventListener('input', note, true);
  container.addEventListener('change', note, true);
  return {
    replay: () => {
      container.removeEventListener('input', note, true);
      container.removeEventListener('change', note, true);
      for (const [field, value] of edits) if (field.isConnected && !field.disabled) tellReact(field, value);
      edits.clear();
    },
  };
}

/** Fields whose value is text (a checkbox or a radio button is a click, which early-clicks.ts does not hold either). */
const TEXT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'number', 'password', 'date', 'datetime-local', 'time', 'month', 'week']);

function valueOf(field: Field): string[] {
  return field instanceof HTMLSelectElement ? [...field.selectedOptions].map((option) => option.value) : [field.value];
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
