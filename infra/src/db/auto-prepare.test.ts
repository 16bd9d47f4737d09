import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { openDatabase, type Database } from './database.ts';
import { autoPreparingPool, preparedName } from './auto-prepare.ts';

/**
 * Statements run often become named prepared statements (auto-prepare.ts). Each handle here has one
 * connection, so `pg_prepared_statements` (the session's own) shows what that connection prepared.
 */
describe('prepared statements (DATABASE_PREPARED_STATEMENTS)', () => {
  let server: TestDatabase;
  const opened: Database[] = [];
  const open = async (preparedStatements?: 'auto' | 'off') => {
    const d = await openDatabase({ url: server.url, poolSize: 1, ...(preparedStatements ? { preparedStatements } : {}) });
    opened.push(d);
    return d;
  };
  const prepared = async (db: Kysely<any>) =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements where name like 'oj_auto_%'`.execute(db)).rows;
  const byId = (id: number) => sql<{ id: number; label: string }>`select id, label from prepare_rows where id = ${id}`;
  const byIdText = 'select id, label from prepare_rows where id = $1';

  beforeAll(async () => {
    server = await createTestDatabase('auto_prepare');
    await sql`create table prepare_rows (id int primary key, label text)`.execute(server.db);
    await sql`insert into prepare_rows select g, 'row ' || g from generate_series(1, 20) g`.execute(server.db);
  });
  afterAll(async () => {
    for (const d of opened) await d.close();
    await server?.drop();
  });

  it('prepares a statement on its fifth run and answers the same rows before and after', async () => {
    const { db } = await open();
    const answers = [];
    for (let id = 1; id <= 8; id++) {
      answers.push((await byId(id).execute(db)).rows);
      // Runs 1 to 4 are unnamed; the fifth is parsed under its name, and later runs reuse it.
      expect((await prepared(db)).map((p) => p.name)).toEqual(id < 5 ? [] : [preparedName(byIdText)]);
    }
    expect(answers).toEqual(Array.from({ length: 8 }, (_, i) => [{ id: i + 1, label: `row ${i + 1}` }]));
    expect((await prepared(db))[0]!.statement).toBe(byIdText);
  });

  it('never prepares a statement without parameters (it may hold several statements)', async () => {
    const { db } = await open();
    for (let i = 0; i < 10; i++) await sql`select count(*) from prepare_rows`.execute(db);
    // Two statements in one text run through the simple protocol, which a prepared statement cannot.
    for (let i = 0; i < 6; i++) await sql.raw('select 1; select 2').execute(db);
    expect(await prepared(db)).toEqual([]);
  });

  it('prepares nothing when off', async () => {
    const { db } = await open('off');
    for (let id = 1; id <= 10; id++) await byId(id).execute(db);
    expect(await prepared(db)).toEqual([]);
  });

  it('works inside transactions, and a failed one leaves the prepared statement usable', async () => {
    const { db } = await open();
    const insert = (id: number) => sql`insert into prepare_rows (id, label) values (${id}, ${`tx ${id}`})`;
    await db.transaction().execute(async (trx) => {
      for (let id = 101; id <= 106; id++) await insert(id).execute(trx);
    });
    // The same insert, prepared now, fails on a duplicate key: the transaction rolls back.
    await expect(db.transaction().execute(async (trx) => {
      await insert(107).execute(trx);
      await insert(101).execute(trx);
    })).rejects.toThrow(/duplicate key/);
    await insert(108).execute(db);
    const ids = (await sql<{ id: number }>`select id from prepare_rows where id > 100 order by id`.execute(db)).rows.map((r) => r.id);
    expect(ids).toEqual([101, 102, 103, 104, 105, 106, 108]);
  });

  it('a table recreated with other columns fails the prepared statement once, then the text runs unprepared', async () => {
    const { db } = await open();
    await sql`create table reshaped (id int, a text)`.execute(db);
    await sql`insert into reshaped values (1, 'a')`.execute(db);
    const star = () => sql<Record<string, unknown>>`select * from reshaped where id = ${1}`.execute(db);
    for (let i = 0; i < 6; i++) expect((await star()).rows).toEqual([{ id: 1, a: 'a' }]);
    await sql`drop table reshaped`.execute(db);
    await sql`create table reshaped (id int, a text, b text)`.execute(db);
    await sql`insert into reshaped values (1, 'a', 'b')`.execute(db);
    await expect(star()).rejects.toThrow(/cached plan must not change result type/);
    expect((await star()).rows).toEqual([{ id: 1, a: 'a', b: 'b' }]);
    expect((await star()).rows).toEqual([{ id: 1, a: 'a', b: 'b' }]);
  });

  it('plans a prepared statement again for the table as it is now, not as it was when it was prepared', async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 1 });
    const replanMs = 300;
    const wrapped = autoPreparingPool(pool, { minUsages: 1, replanMs });
    // No ANALYZE by autovacuum either, which would invalidate the plan where it runs: only the age discards it.
    await pool.query('create table growing (id int primary key, v text) with (autovacuum_enabled = false)');
    const text = 'select g.id, g.v from json_to_recordset($1::json) as k(id int) join growing g on g.id = k.id';
    const plan = async () => {
      const client = await wrapped.connect();
      try {
        const keys = JSON.stringify([{ id: 7 }]);
        // The plan a prepared statement is run with (generic, once chosen), after a run by its name.
        await client.query(text, [keys]);
        const r = await client.query<{ 'QUERY PLAN': string }>(`explain execute ${preparedName(text)}('${keys}')`, []);
        return r.rows.map((x) => x['QUERY PLAN']).join('\n');
      } finally {
        client.release();
      }
    };
    try {
      // Empty: a sequential scan of the table is the cheapest way, and the generic plan keeps it.
      for (let i = 0; i < 8; i++) await plan();
      expect(await plan()).toMatch(/Seq Scan on growing/);
      await pool.query(`insert into growing select g, 'v' || g from generate_series(1, 200000) g`);
      await new Promise((r) => setTimeout(r, replanMs + 50));
      let now = '';
      for (let i = 0; i < 8; i++) now = await plan();
      expect(now).not.toMatch(/Seq Scan on growing/);
      expect(now).toMatch(/Index Scan using growing_pkey/);
    } finally {
      await wrapped.end();
    }
  });

  it('prepares at most maxPerConnection statements per connection', async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 1 });
    const wrapped = autoPreparingPool(pool, { minUsages: 1, maxPerConnection: 2 });
    const client = await wrapped.connect();
    try {
      for (const column of ['id', 'label', 'id, label']) {
        const r = await client.query<Record<string, unknown>>(`select ${column} from prepare_rows where id = $1`, [3]);
        expect(r.rows).toHaveLength(1);
      }
      const names = (await client.query<{ name: string }>(`select name from pg_prepared_statements where name like $1 order by name`, ['oj_auto_%'])).rows;
      // The first two texts; the third (and this look-up) ran unnamed.
      expect(names).toHaveLength(2);
    } finally {
      client.release();
      await wrapped.end();
    }
  });
});
