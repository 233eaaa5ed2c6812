/**
 * A name that may be long (a branch name can have 256 characters): cut with an ellipsis where space
 * is short, in full as its title on hover, and in full while the row, item or dialog around it holds
 * keyboard focus (layout.css); `focusable` where nothing around it can take focus.
 */
export function LongName({ name, focusable = false }: { name: string; focusable?: boolean }) {
  return (
    <span className="truncate" title={name} tabIndex={focusable ? 0 : undefined}>
      {name}
    </span>
  );
}
