// A spreadsheet runs a cell starting with one of these as a formula (CSV injection); a leading
// apostrophe makes it text. Only text from the API is touched, never the numbers we write.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One RFC 4180 cell, safe from formulas: every CSV the console writes (the insights' too) writes its cells so. */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
