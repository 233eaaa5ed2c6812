// Controls beyond a person's role in team sign-in (docs/team.md, "What each role may do"): disabled, and why said
// once per place in a note a person sees, each reason in it the description of the controls it stops.

/** The id of `reason`'s part of the note `noteId`: what a control it stops names in `aria-describedby`. */
export const refusalId = (noteId: string, reason: string): string => `${noteId}-${reason.toLowerCase().replace(/[^a-z]+/g, '-')}`;

/**
 * A control's description and look: beyond the person's role, described by its reason and drawn as refused (not
 * merely busy: styles.css, `button.refused`); else as it was.
 */
export function refusedProps(noteId: string, reason: string | undefined, className = ''): { 'aria-describedby'?: string; className?: string } {
  const classes = reason === undefined ? className : `${className} refused`.trim();
  return {
    ...(reason === undefined ? {} : { 'aria-describedby': refusalId(noteId, reason) }),
    ...(classes ? { className: classes } : {}),
  };
}

/** One visible note for a place's refused controls: "Operators can create branches. Operators can restart computes." */
export function RefusalNote({ id, reasons }: { id: string; reasons: readonly (string | undefined)[] }) {
  const shown = [...new Set(reasons.filter((reason): reason is string => reason !== undefined))];
  if (shown.length === 0) return null;
  return (
    <p className="refusal-note muted small" id={id}>
      {shown.map((reason, i) => (
        <span key={reason}>
          {i > 0 && ' '}
          <span id={refusalId(id, reason)}>{reason}</span>.
        </span>
      ))}
    </p>
  );
}
