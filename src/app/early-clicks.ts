/**
 * A server-rendered page is painted, and can be clicked, before React takes it over (mount-app.tsx
 * hydrates after the first paint). A link works without React and a form posts without it, but a button
 * such as "Watch" does nothing until then: this holds such clicks on `container` and gives them back
 * once React listens, so a click in that moment is answered, not lost. React then hydrates whatever the
 * click landed in first. A button pressed again while nothing seemed to happen counts once.
 */
export function holdEarlyClicks(container: HTMLElement): { release: () => void } {
  const held = new Set<HTMLButtonElement>();
  const hold = (event: MouseEvent) => {
    const button = event.target instanceof Element ? event.target.closest('button') : null;
    // A form's submit button works as it is (the form posts to the server); only a script's button waits.
    if (!button || !container.contains(button) || (button.form && button.type === 'submit')) return;
    event.preventDefault();
    event.stopPropagation();
    held.add(button);
  };
  container.addEventListener('click', hold, true);
  return {
    release: () => {
      container.removeEventListener('click', hold, true);
      for (const button of held) if (button.isConnected && !button.disabled) button.click();
      held.clear();
    },
  };
}
