/**
 * CSV (RFC 4180: fields separated by commas, records ended by CRLF) for the files the API hands out: the
 * audit's timeline and a trader's trade lists.
 */

/**
 * A text field: always quoted, quotes doubled. A leading =, +, - or @ would be a formula to a spreadsheet
 * (a ticker, a note or an account name typed as `=HYPERLINK(...)`), so such a text starts with a `'`.
 */
export const csvText = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
};

/** A figure as a spreadsheet reads one (a loss stays a negative number); empty when there is none. */
export const csvNumber = (v: number | null | undefined): string => (v === null || v === undefined || !Number.isFinite(v) ? '' : String(v));
