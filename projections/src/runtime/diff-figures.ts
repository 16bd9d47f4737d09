import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Row-by-row comparison of two versions of a read model, by primary key: which figures (columns) a
 * new version changes, in how many rows, for how many users, and by how much at most. `diff` in
 * rebuild.ts compares whole rows (a row with one changed figure shows as one row only in each
 * version); this says which figure moved, which is what an operator checks after a formula change
 * ("ror changed for 312 trades of 41 users, largest +3.2").
 */
export interface KeyedRows {
  table: string;
  /** Primary key columns rows are matched by; empty when the table has none (no per-row comparison). */
  key: string[];
  matched: number;
  onlyInLive: number;
  onlyInOther: number;
}

export interface FigureChange {
  table: string;
  column: string;
  rowsChanged: number;
  /** Distinct `user_id` of those rows; null when the table has no such column. */
  users: number | null;
  /** Other minus live of the largest change by size; null for non-numeric columns. */
  largestDelta: number | null;
  /** Up to `samples` changed rows, largest change first. */
  samples: Array<{ key: Record<string, unknown>; user: string | null; live: unknown; other: unknown }>;
}

interface Column {
  name: string;
  numeric: boolean;
  json: boolean;
}

const NUMERIC = new Set(['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision']);

async function columnsOf(db: Kysely<any>, table: string): Promise<Column[]> {
  const r = await sql<{ column_name: string; data_type: string }>`select column_name, data_type from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db);
  return r.rows.map((c) => ({ name: c.column_name, numeric: NUMERIC.has(c.data_type), json: c.data_type === 'json' }));
}

async function primaryKey(db: Kysely<any>, table: string): Promise<string[]> {
  const r = await sql<{ attname: string }>`select a.attname from pg_index i
    join pg_class c on c.oid = i.indrelid
    join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where c.relname = ${table} and i.indisprimary
    order by array_position(i.indkey::int2[], a.attnum)`.execute(db);
  return r.rows.map((x) => x.attname);
}

/** json has no equality operator: compare it as jsonb (same value whatever the key order or spacing). */
const ref = (alias: string, c: Column): RawBuilder<unknown> => (c.json ? sql`${sql.ref(`${alias}.${c.name}`)}::jsonb` : sql`${sql.ref(`${alias}.${c.name}`)}`);

export async function diffFigures(
  db: Kysely<any>,
  liveTables: Record<string, string>,
  otherTables: Record<string, string>,
  options: { samples?: number; categoryColumns?: Readonly<Record<string, readonly string[]>> } = {},
): Promise<{ keyed: KeyedRows[]; figures: FigureChange[] }> {
  const sampleCount = options.samples ?? 5;
  // Codes (a status, a list): which rows changed is the news; a "largest change" of a code is none.
  const isCategory = (table: string, column: string) => options.categoryColumns?.[table]?.includes(column) ?? false;
  const keyed: KeyedRows[] = [];
  const figures: FigureChange[] = [];
  for (const [logical, a] of Object.entries(liveTables)) {
    const b = otherTables[logical];
    if (!b) continue;
    const key = await primaryKey(db, a);
    const keyOther = await primaryKey(db, b);
    if (!key.length || key.join(',') !== keyOther.join(',')) {
      keyed.push({ table: logical, key: [], matched: 0, onlyInLive: 0, onlyInOther: 0 });
      continue;
    }
    const colsB = await columnsOf(db, b);
    const cols = (await columnsOf(db, a)).filter((c) => !key.includes(c.name) && colsB.some((x) => x.name === c.name));
    const hasUser = cols.some((c) => c.name === 'user_id') || key.includes('user_id');
    const on = sql.join(key.map((k) => sql`${sql.ref(`a.${k}`)} = ${sql.ref(`b.${k}`)}`), sql` and `);
    const from = sql`${sql.table(a)} as a join ${sql.table(b)} as b on ${on}`;
    const int = async (q: RawBuilder<{ n: number }>) => Number((await q.execute(db)).rows[0]?.n ?? 0);
    const firstKey = key[0]!;
    keyed.push({
      table: logical,
      key,
      matched: await int(sql<{ n: number }>`select count(*)::int as n from ${from}`),
      onlyInLive: await int(sql<{ n: number }>`select count(*)::int as n from ${sql.table(a)} as a left join ${sql.table(b)} as b on ${on} where ${sql.ref(`b.${firstKey}`)} is null`),
      onlyInOther: await int(sql<{ n: number }>`select count(*)::int as n from ${sql.table(b)} as b left join ${sql.table(a)} as a on ${on} where ${sql.ref(`a.${firstKey}`)} is null`),
    });
    for (const c of cols) {
      const changed = sql`${ref('a', c)} is distinct from ${ref('b', c)}`;
      const counts = await sql<{ n: number; u: number | null }>`select count(*)::int as n,
        ${hasUser ? sql`count(distinct a.user_id)::int` : sql`null::int`} as u from ${from} where ${changed}`.execute(db);
      const n = Number(counts.rows[0]?.n ?? 0);
      if (!n) continue;
      const delta = c.numeric && !isCategory(logical, c.name) ? sql`(${sql.ref(`b.${c.name}`)}::numeric - ${sql.ref(`a.${c.name}`)}::numeric)` : null;
      const keyCols = sql.join(key.map((k) => sql`${sql.ref(`a.${k}`)} as ${sql.ref(`k_${k}`)}`));
      const rows = await sql<Record<string, unknown>>`select ${keyCols},
          ${hasUser ? sql`a.user_id::text` : sql`null::text`} as oj_user,
          ${ref('a', c)} as oj_live, ${ref('b', c)} as oj_other,
          ${delta ? sql`${delta}::float8` : sql`null::float8`} as oj_delta
        from ${from} where ${changed}
        order by ${delta ? sql`abs(${delta}) desc nulls last, ` : sql``}${sql.join(key.map((k) => sql.ref(`a.${k}`)))}
        limit ${sampleCount}`.execute(db);
      figures.push({
        table: logical,
        column: c.name,
        rowsChanged: n,
        users: hasUser ? Number(counts.rows[0]?.u ?? 0) : null,
        largestDelta: delta ? ((rows.rows[0]?.oj_delta as number | null) ?? null) : null,
        samples: rows.rows.map((r) => ({
          key: Object.fromEntries(key.map((k) => [k, r[`k_${k}`]])),
          user: (r.oj_user as string | null) ?? null,
          live: r.oj_live,
          other: r.oj_other,
        })),
      });
    }
  }
  figures.sort((x, y) => y.rowsChanged - x.rowsChanged || x.table.localeCompare(y.table) || x.column.localeCompare(y.column));
  return { keyed, figures };
}
