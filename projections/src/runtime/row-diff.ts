/**
 * Rows computed from the log compared with the rows a table holds, key by key and field by field. Two
 * readers share it: the audit's Verify (which lists what differs) and the one-user recompute (which
 * rewrites only what differs), so what Verify calls consistent is exactly what a recompute leaves alone.
 */

/**
 * Equal as JSON values, object key order aside: what comparing the two `canon` texts tells, without
 * building them (most fields are numbers and strings, equal at the first test). `undefined` reads as
 * null, a Date as its ISO text.
 */
export function sameJson(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (x instanceof Date) return sameJson(x.toISOString(), y);
  if (y instanceof Date) return sameJson(x, y.toISOString());
  if (x === null || y === null || x === undefined || y === undefined || typeof x !== 'object' || typeof y !== 'object') return canon(x) === canon(y);
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!sameJson(x[i], y[i])) return false;
    return true;
  }
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  let n = 0;
  for (const k in xo) {
    if (!(k in yo) || !sameJson(xo[k], yo[k])) return false;
    n++;
  }
  return Object.keys(yo).length === n;
}

/** JSON with object keys sorted, so rows compare by value. */
export function canon(v: unknown): string {
  if (v === undefined) return 'null';
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

export interface FieldDifference {
  field: string;
  /** The table's value (null when the row is missing there). */
  live: unknown;
  /** The value computed from the log. */
  replayed: unknown;
}

/** Fields of two rows that differ, as JSON values (key order inside JSON columns does not count). */
export function fieldDifferences(live: Record<string, unknown> | undefined, replayed: Record<string, unknown> | undefined): FieldDifference[] {
  const out: FieldDifference[] = [];
  const check = (k: string) => {
    const x = live?.[k] ?? null;
    const y = replayed?.[k] ?? null;
    if (!sameJson(x, y)) out.push({ field: k, live: x, replayed: y });
  };
  // Some 300,000 pairs of rows for a heavy user: no arrays or sets of keys are built per pair.
  if (live) for (const k in live) check(k);
  if (replayed) for (const k in replayed) if (!live || !(k in live)) check(k);
  return out;
}

export interface RowDiff<R> {
  /** Rows on both sides, by key (after `keep`). */
  live: number;
  replayed: number;
  /** Keys of rows only the table holds. */
  onlyLive: string[];
  /** Rows only the log gives. */
  onlyReplayed: R[];
  /** Rows on both sides that differ: the key, the row the log gives and the fields that differ. */
  differs: Array<{ key: string; replayed: R; fields: FieldDifference[] }>;
}

/**
 * One table's live rows compared with computed rows that arrive in parts (`add`), so a caller can write
 * what one part changes while it computes the next. `rest` gives the keys of live rows no part gave.
 * A key given twice counts once (the later row is compared).
 */
export class RowDiffer<R extends object> {
  readonly #theirs = new Map<string, Record<string, unknown>>();
  readonly #seen = new Set<string>();
  readonly #keyOf: (row: any) => string;
  readonly #keep: (row: any) => boolean;

  constructor(live: readonly Record<string, unknown>[], keyOf: (row: any) => string, keep: (row: any) => boolean = () => true) {
    this.#keyOf = keyOf;
    this.#keep = keep;
    for (const r of live) if (keep(r)) this.#theirs.set(keyOf(r), r);
  }

  /** Rows the table holds (after `keep`). */
  get live(): number {
    return this.#theirs.size;
  }

  /** Rows given so far (after `keep`). */
  get replayed(): number {
    return this.#seen.size;
  }

  /** Compares a part of the computed rows: those the table lacks, and those that differ from it. */
  add(replayed: readonly R[]): Pick<RowDiff<R>, 'onlyReplayed' | 'differs'> {
    const out: Pick<RowDiff<R>, 'onlyReplayed' | 'differs'> = { onlyReplayed: [], differs: [] };
    for (const m of replayed) {
      if (!this.#keep(m)) continue;
      const key = this.#keyOf(m);
      this.#seen.add(key);
      const r = this.#theirs.get(key);
      if (!r) {
        out.onlyReplayed.push(m);
        continue;
      }
      const fields = fieldDifferences(r, m as Record<string, unknown>);
      if (fields.length) out.differs.push({ key, replayed: m, fields });
    }
    return out;
  }

  /** Keys of the live rows no part gave. */
  rest(): string[] {
    const out: string[] = [];
    for (const key of this.#theirs.keys()) if (!this.#seen.has(key)) out.push(key);
    return out;
  }
}

/**
 * One table's rows (of one user) against the rows computed from the log, matched by `keyOf`. `keep`
 * leaves rows out on both sides (Verify takes a trade count of 0 as no count row).
 */
export function diffRows<R extends object>(
  live: readonly Record<string, unknown>[],
  replayed: readonly R[],
  keyOf: (row: any) => string,
  keep: (row: any) => boolean = () => true,
): RowDiff<R> {
  // The computed side by key first: a key computed twice is compared once, with its last row.
  const mine = new Map<string, R>();
  for (const r of replayed) if (keep(r)) mine.set(keyOf(r), r);
  const differ = new RowDiffer<R>(live, keyOf, keep);
  const { onlyReplayed, differs } = differ.add([...mine.values()]);
  return { live: differ.live, replayed: differ.replayed, onlyLive: differ.rest(), onlyReplayed, differs };
}

/** What a recompute wrote to one table: rows added, rewritten and removed (the operations contract's `rowChanges`). */
export type { RowChanges } from '@oj/contracts/operations';
