// A SQL condition built in code (a history filter field, the in-flight rule) never writes a value into its
// text: it asks for a placeholder per value, and the values travel beside the text as parameters.

/** A value a condition hands over as a parameter. */
export type SqlParam = string | number | readonly string[];

/** Hands out SQL placeholders (`$1`, `$2`, …) for values, which travel as parameters. */
export interface SqlParams {
  add(value: SqlParam): string;
}

/** Placeholders numbered from `$first`, and the values handed out so far, in placeholder order. */
export function sqlParams(first = 1): SqlParams & { readonly values: SqlParam[] } {
  const values: SqlParam[] = [];
  return {
    values,
    add(value) {
      values.push(value);
      return `$${first + values.length - 1}`;
    },
  };
}
