import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { bulkTransaction } from './bulk.ts';

/**
 * Bulk loads on PostgreSQL: a table whose columns COPY's binary format can all write is loaded in it,
 * any other in text. Both must store the same values: the same rows loaded into a binary table and into
 * a text one (its one extra column is of a type only text writes) read back equal, value by value.
 */
describe('bulk loads (COPY) on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('bulk');
    const columns = sql`t text, tn text, j json, jb jsonb, f float8, i2 smallint, i4 integer, i8 bigint, b boolean, d date`;
    await sql`create table binary_rows (${columns})`.execute(database.db);
    // numeric: not one of the binary types, so this table is loaded as text.
    await sql`create table text_rows (${columns}, forces_text numeric)`.execute(database.db);
  });
  afterAll(async () => database?.drop());

  const columns = ['t', 'tn', 'j', 'jb', 'f', 'i2', 'i4', 'i8', 'b', 'd'] as const;
  type Row = Record<(typeof columns)[number], unknown>;
  const rows: Row[] = [
    { t: 'plain', tn: null, j: { a: 1, 'é"\\': [true, null] }, jb: [239.67, 250], f: 24.48, i2: 1, i4: 0, i8: 0, b: true, d: '2026-11-27' },
    { t: 'tab\tnew\nline\rback\\slash', tn: '', j: [], jb: {}, f: -0.1 + 0.2, i2: -32_768, i4: -2_147_483_648, i8: -(2n ** 63n), b: false, d: '2000-01-01' },
    { t: 'ünï©ødé 📈 𝔘', tn: 'x'.repeat(100_000), j: { s: '📈' }, jb: ['tag', 'ünï'], f: Number.MAX_VALUE, i2: 32_767, i4: 2_147_483_647, i8: 2n ** 63n - 1n, b: true, d: '1999-12-31' },
    { t: '', tn: null, j: null, jb: null, f: null, i2: null, i4: null, i8: null, b: null, d: null },
    { t: 'doubles', tn: 'x', j: { n: 5e-324 }, jb: { n: 1e21 }, f: 5e-324, i2: 0, i4: 7, i8: Number.MAX_SAFE_INTEGER, b: false, d: '2024-02-29' },
    { t: 'more doubles', tn: 'y', j: 1, jb: '"a JSON text"', f: Number.NaN, i2: 0, i4: 7, i8: 1, b: false, d: '1970-01-01' },
    { t: 'infinities', tn: 'z', j: 1, jb: 1, f: Number.POSITIVE_INFINITY, i2: 0, i4: 7, i8: 1, b: false, d: '1900-03-01' },
    { t: 'negative zero', tn: 'z1', j: { z: -0 }, jb: [-0], f: -0, i2: -0, i4: -0, i8: -0, b: false, d: '1970-01-02' },
    { t: 'infinities', tn: 'z2', j: 1, jb: 1, f: Number.NEGATIVE_INFINITY, i2: 0, i4: 7, i8: 1, b: false, d: '9999-12-31' },
  ];

  const load = (table: string, these: readonly Row[], of: readonly string[] = columns) =>
    bulkTransaction(database, (t) => t.load(table, of as never, these as never));

  const read = async (table: string) =>
    (await sql<Row>`select t, tn, j::text as j, jb::text as jb, f, f::text as ft, i2, i4, i8::text as i8, b, d::text as d from ${sql.table(table)} order by t, tn`.execute(database.db)).rows;

  it('stores every value as the text format does: strings, JSON, doubles, integers at their limits, booleans, dates, nulls', async () => {
    // Many rows, so that the load spans several chunks of each format.
    // The 100,000-character value (past a chunk's worst case) only once.
    const many = Array.from({ length: 3_000 }, (_, i) =>
      rows.map((r) => ({ ...r, t: `${r.t as string}#${String(i).padStart(4, '0')}`, ...(i > 0 && (r.tn as string)?.length > 1000 ? { tn: 'x' } : {}) })),
    ).flat();
    expect(await load('binary_rows', many)).toBe(many.length);
    expect(await load('text_rows', many.map((r) => ({ ...r, forces_text: 1 })), [...columns, 'forces_text'])).toBe(many.length);
    const binary = await read('binary_rows');
    expect(binary).toHaveLength(many.length);
    expect(binary).toEqual(await read('text_rows'));
    // And a few by hand, against what was given.
    const first = binary.find((r) => r.t === 'plain#0000')!;
    expect(first).toMatchObject({ f: 24.48, i2: 1, b: true, d: '2026-11-27' });
    expect(JSON.parse(first.j as string)).toEqual({ a: 1, 'é"\\': [true, null] });
    const unicode = binary.find((r) => (r.t as string).startsWith('ünï'))!;
    expect(unicode.t).toBe('ünï©ødé 📈 𝔘#0000');
    expect(unicode.tn).toBe('x'.repeat(100_000));
    expect(binary.find((r) => r.t === 'tab\tnew\nline\rback\\slash#0000')).toMatchObject({ tn: '', i8: String(-(2n ** 63n)), d: '2000-01-01', f: -0.1 + 0.2 });
    expect(binary.find((r) => r.t === 'negative zero#0000')).toMatchObject({ ft: '0', i4: 0 });
    expect(binary.find((r) => r.t === 'doubles#0000')).toMatchObject({ f: 5e-324, i8: String(Number.MAX_SAFE_INTEGER), d: '2024-02-29' });
  });

  it('refuses a value its column cannot hold, naming the column, and writes nothing of the load', async () => {
    await sql`truncate binary_rows`.execute(database.db);
    const good = rows[0]!;
    const cases: Array<[Partial<Row>, RegExp]> = [
      [{ i4: 1.5 }, /Column i4: COPY needs a whole number of 32 bits, got 1.5/],
      [{ i2: 40_000 }, /Column i2: COPY needs a whole number of 16 bits/],
      [{ f: '1.5' }, /Column f: COPY needs a number, got "1.5"/],
      [{ d: '2026-02-30' }, /Column d: COPY needs a YYYY-MM-DD date, got "2026-02-30"/],
      [{ b: 1 }, /Column b: COPY needs a boolean/],
      [{ i8: 2 ** 60 }, /Column i8: COPY needs a whole number of 64 bits/],
    ];
    for (const [change, message] of cases) {
      await expect(load('binary_rows', [good, { ...good, ...change }])).rejects.toThrow(message);
    }
    expect((await read('binary_rows')).length).toBe(0);
  });

  it('loads only the columns named, in their order, whatever the table order', async () => {
    await sql`truncate binary_rows`.execute(database.db);
    await load('binary_rows', [{ d: '2026-01-02', t: 'some', f: 1.25 } as unknown as Row], ['d', 't', 'f']);
    expect(await read('binary_rows')).toEqual([{ t: 'some', tn: null, j: null, jb: null, f: 1.25, ft: '1.25', i2: null, i4: null, i8: null, b: null, d: '2026-01-02' }]);
  });
});
