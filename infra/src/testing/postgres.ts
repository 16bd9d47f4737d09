import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../db/database.ts';
import { requireDatabaseUrl } from './env.ts';

/**
 * A fresh, empty database on the test server for one test file, dropped afterwards. Integration tests
 * run against real PostgreSQL, never a mock, and never share state with another file.
 */
export interface TestDatabase extends Database {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(label = 'test'): Promise<TestDatabase> {
  const adminUrl = requireDatabaseUrl();
  const name = `oj_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase().slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 10 });
  let dropped = false;
  return {
    ...database,
    url: url.toString(),
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      await database.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        // pool.end() resolves before its clients finish closing; a forced drop would kill them
        // mid-close and their error would surface as an unhandled exception in the test run.
        for (let i = 0; i < 100; i++) {
          const open = await c.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
          if (!open.rows[0]?.n) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** An in-memory PGlite database, for the embedded-mode variants of the same tests. */
export async function createPGliteDatabase(): Promise<Database> {
  return openDatabase({});
}
