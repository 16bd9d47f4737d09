/** Reading the CSV files the API hands out, in tests (server and browser). */

/** RFC 4180 records: quoted fields with doubled quotes, CRLF after each record (the exports' form). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      fields.push(field);
      records.push(fields);
      fields = [];
      field = '';
      i++;
    } else field += ch;
  }
  return records;
}

/** A CSV file's header and its records keyed by the header's names. */
export function csvTable(text: string): { header: string[]; rows: Record<string, string>[] } {
  const [header = [], ...records] = parseCsv(text);
  return { header, rows: records.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]!]))) };
}
