import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { keepConnectionsOpen, openDatabase, type Database } from './database.ts';

/**
 * `keepConnectionsOpen`: the connections a process keeps for its bursts survive the pool's idle timeout
 * (the same backends, by their process id), and close again for idleness once let go.
 */
describe('connections kept open through quiet spells', () => {
  let server: TestDatabase;
  let database: Database;
  const idleMs = 100;
  /** The backends of `n` connections taken at once (so that the pool opens as many as it lacks). */
  const backendsOf = async (n: number) => {
    const clients = await Promise.all(Array.from({ length: n }, () => database.pool!.connect()));
    const pids = await Promise.all(clients.map(async (c) => (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid));
    for (const c of clients) c.release();
    return new Set(pids);
  };
  const quietSpell = () => new Promise((r) => setTimeout(r, idleMs * 4));

  beforeAll(async () => {
    server = await createTestDatabase('keep_open');
    database = await openDatabase({ url: server.url, poolSize: 6 });
    database.pool!.options.idleTimeoutMillis = idleMs;
  });
  afterAll(async () => {
    await database?.close();
    await server?.drop();
  });

  it('keeps as many as asked open, idle or not, and only those', async () => {
    const letGo = keepConnectionsOpen(database, 3);
    const before = await backendsOf(5);
    expect(before.size).toBe(5);
    await quietSpell();
    // Two of the five closed for idleness; three stayed, the same backends.
    expect(database.pool!.totalCount).toBe(3);
    const after = await backendsOf(3);
    expect([...after].every((pid) => before.has(pid))).toBe(true);
    letGo();
    await backendsOf(3);
    await quietSpell();
    expect(database.pool!.totalCount).toBe(0);
  });

  it('keeps the largest of several asks, and never more than the pool holds', async () => {
    const small = keepConnectionsOpen(database, 2);
    const large = keepConnectionsOpen(database, 50);
    const seen = await backendsOf(6);
    await quietSpell();
    expect(database.pool!.totalCount).toBe(6);
    large();
    large(); // twice: the second does nothing
    await backendsOf(6);
    await quietSpell();
    expect(database.pool!.totalCount).toBe(2);
    small();
    await backendsOf(2);
    await quietSpell();
    expect(database.pool!.totalCount).toBe(0);
    // The server agrees: none of those backends is left.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = any(${[...seen]}::int[])`.execute(server.db);
    expect(rows[0]!.n).toBe(0);
  });
});
