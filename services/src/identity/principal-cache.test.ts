import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '@oj/infra/db/database';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { uuidv7 } from '@oj/infra/ids';
import { migrate } from '../platform/migrations.ts';
import { forgetPrincipal, PrincipalCache } from './principal-cache.ts';
import { findUserByUid } from './users.ts';

const waitFor = async (condition: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

async function addUser(db: Database, name: string): Promise<string> {
  const uid = uuidv7();
  const now = new Date('2026-03-02T15:00:00Z');
  await db.db
    .insertInto('users')
    .values({ uid, name, email: `${uid}@example.com`, password_hash: 'x', role: 'User', account_confirmed: false, created_at: now, updated_at: now })
    .execute();
  return uid;
}

/** A cache whose reads are counted: a lookup answered from memory does not count. */
function countedCache(database: Database, options: { retryMs?: number } = {}) {
  const reads: string[] = [];
  const cache = new PrincipalCache(database, {
    ...options,
    load: (uid) => {
      reads.push(uid);
      return findUserByUid(database.db, uid);
    },
  });
  return { cache, reads };
}

describe.each([
  ['PostgreSQL', async (): Promise<Database & { drop(): Promise<void> }> => createTestDatabase('principals')],
  ['PGlite', async (): Promise<Database & { drop(): Promise<void> }> => createPGliteDatabase().then((d) => ({ ...d, drop: () => d.close() }))],
])('principal cache on %s', (_, open) => {
  let database: Database & { drop(): Promise<void> };
  beforeAll(async () => {
    database = await open();
    await migrate(database.db);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('answers a user seen before from memory, and reads again after any change to the user, whoever made it', async () => {
    const { cache, reads } = countedCache(database);
    try {
      await waitFor(() => cache.isLive);
      const uid = await addUser(database, 'Cached');
      expect((await cache.find(uid))?.account_confirmed).toBe(false);
      expect((await cache.find(uid))?.account_confirmed).toBe(false);
      expect(reads).toHaveLength(1);

      // Behind the cache's back, as psql or another gateway would: the trigger tells it.
      await sql`update users set account_confirmed = true where uid = ${uid}`.execute(database.db);
      await cache.settled();
      expect((await cache.find(uid))?.account_confirmed).toBe(true);
      expect(reads).toHaveLength(2);

      // A subscription row is part of the user: its insert, update and delete each count.
      await sql`insert into subscriptions (user_uid, status, current_period_end, updated_at) values (${uid}, 1, '2026-04-01T00:00:00Z', now())`.execute(database.db);
      await cache.settled();
      expect((await cache.find(uid))?.sub_status).toBe(1);
      await sql`update subscriptions set status = 3 where user_uid = ${uid}`.execute(database.db);
      await cache.settled();
      expect((await cache.find(uid))?.sub_status).toBe(3);
      await sql`delete from subscriptions where user_uid = ${uid}`.execute(database.db);
      await cache.settled();
      expect((await cache.find(uid))?.sub_status).toBeNull();

      await sql`delete from users where uid = ${uid}`.execute(database.db);
      await cache.settled();
      expect(await cache.find(uid)).toBeUndefined();
      expect(reads).toHaveLength(6);
    } finally {
      await cache.close();
    }
  });

  it('another user’s change leaves a cached user alone; a change in this process is forgotten at once, in every cache', async () => {
    const a = countedCache(database);
    const b = countedCache(database);
    try {
      await waitFor(() => a.cache.isLive && b.cache.isLive);
      const [one, two] = [await addUser(database, 'One'), await addUser(database, 'Two')];
      await a.cache.find(one);
      await b.cache.find(one);
      await sql`update users set name = 'Two renamed' where uid = ${two}`.execute(database.db);
      await a.cache.settled();
      await a.cache.find(one);
      expect(a.reads).toEqual([one]);

      forgetPrincipal(one);
      await a.cache.find(one);
      await b.cache.find(one);
      expect(a.reads).toEqual([one, one]);
      expect(b.reads).toEqual([one, one]);
    } finally {
      await a.cache.close();
      await b.cache.close();
    }
  });

  it('a read that overlapped a change is not kept: it may hold the row from before the change', async () => {
    const uid = await addUser(database, 'Overlap');
    let release: () => void = () => undefined;
    let reads = 0;
    let firstRowRead = false;
    const cache = new PrincipalCache(database, {
      load: async (id) => {
        const read = ++reads;
        const user = await findUserByUid(database.db, id);
        if (read === 1) {
          firstRowRead = true;
          await new Promise<void>((r) => (release = r));
        }
        return user;
      },
    });
    try {
      await waitFor(() => cache.isLive);
      const slow = cache.find(uid);
      // Wait for the row itself, not the start of the read: the update must come after the select.
      await waitFor(() => firstRowRead);
      // The first read has its (old) row; the change commits and is heard before that read answers.
      await sql`update users set name = 'Overlap renamed' where uid = ${uid}`.execute(database.db);
      await cache.settled();
      release();
      expect((await slow)?.name).toBe('Overlap');
      expect((await cache.find(uid))?.name).toBe('Overlap renamed');
      expect(reads).toBe(2);
    } finally {
      await cache.close();
    }
  });
});

describe('principal cache when its LISTEN session breaks (PostgreSQL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('principals_lost');
    await migrate(database.db);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('reads the database on every lookup until a new session listens, then caches again', async () => {
    // A new session listens 3 s after the loss: time enough for the lookups below to run while none
    // does, on a loaded machine too.
    const { cache, reads } = countedCache(database, { retryMs: 3000 });
    try {
      await waitFor(() => cache.isLive);
      const uid = await addUser(database, 'Lost');
      await cache.find(uid);
      await cache.find(uid);
      expect(reads).toHaveLength(1);

      const killed = await sql<{ n: number }>`
        select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where datname = current_database() and query ilike 'listen oj_principals%'`.execute(database.db);
      expect(killed.rows[0]?.n).toBe(1);
      await waitFor(() => !cache.isLive);
      // Changes made now would reach nobody: nothing is answered from memory, nothing is kept.
      await sql`update users set role = 'Admin' where uid = ${uid}`.execute(database.db);
      expect((await cache.find(uid))?.role).toBe('Admin');
      expect((await cache.find(uid))?.role).toBe('Admin');
      expect(reads).toHaveLength(3);

      await waitFor(() => cache.isLive, 15_000);
      await cache.find(uid);
      await cache.find(uid);
      expect(reads).toHaveLength(4);
    } finally {
      await cache.close();
    }
  });
});
