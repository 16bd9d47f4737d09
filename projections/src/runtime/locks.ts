import { sql, type Kysely } from 'kysely';
import type { Database } from '@oj/infra/db/database';

/** Advisory lock namespaces (first key of the two-key form). */
export const LOCK_SWITCH = 731_001;
export const LOCK_REBUILD = 731_002;
export const LOCK_DISPATCHER = 731_003;
/** One lane's writer (second key: the lane's number), for one transaction. */
export const LOCK_LANE = 731_004;
/**
 * An operator's switch, rollback, retire or abandon of one projection (second key: its name). Taken
 * before the rebuild lock and waited for (`waitForLock`): two operators' commands on one projection then
 * run one after the other, and the second checks the registry the first left, instead of failing on the
 * rebuild lock as if a rebuild were running.
 */
export const LOCK_OPERATOR = 731_005;

/**
 * Lane transactions take the switch lock shared; a switch (or a user-scoped rebuild) takes it
 * exclusively. So a switch waits for batches in flight and a batch that starts after it reads the
 * registry afresh (READ COMMITTED: each statement sees what committed before it) — no batch can apply
 * events to a version that just retired while skipping the one that just went live.
 */
export async function lockSwitchShared(trx: Kysely<any>): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(${LOCK_SWITCH}::int, 0)`.execute(trx);
}
/**
 * The switch lock shared and the lane's lock, in one statement (switch first, as everywhere). A lane
 * transaction is the lane's only writer while it holds the lane's lock: another worker's batch of the
 * lane (a re-run after a stall), a one-user recompute of a user of the lane. An advisory lock, not a
 * row lock on the checkpoint: a row lock gives the transaction an id from its first statement, and every
 * reader of the log waits for transactions older than an event's (postgres.ts), so each batch held the
 * dispatcher back for its whole length.
 */
export async function lockSwitchSharedAndLane(trx: Kysely<any>, lane: number): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(${LOCK_SWITCH}::int, 0), pg_advisory_xact_lock(${LOCK_LANE}::int, ${lane}::int)`.execute(trx);
}
/** The lane's lock alone, for a transaction that holds the switch lock shared already. */
export async function lockLane(trx: Kysely<any>, lane: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(${LOCK_LANE}::int, ${lane}::int)`.execute(trx);
}
export async function lockSwitchExclusive(trx: Kysely<any>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${LOCK_SWITCH}::int, 0)`.execute(trx);
}

export interface SessionLock {
  /** False once the connection holding it broke (the lock is then gone). */
  held(): boolean;
  release(): Promise<void>;
}

const localLocks = new Set<string>();

/**
 * A session-level advisory lock held on its own connection until released (or until the process
 * dies, which frees it: a killed rebuild or dispatcher never leaves a stale lock). PGlite is one
 * process and one session, so there the lock is an in-process one.
 */
export async function tryLock(database: Database, namespace: number, name: string): Promise<SessionLock | null> {
  const key = `${namespace}/${name}`;
  if (!database.pool) {
    if (localLocks.has(key)) return null;
    localLocks.add(key);
    return { held: () => localLocks.has(key), release: async () => void localLocks.delete(key) };
  }
  const client = await database.pool.connect();
  try {
    const res = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::int, hashtext($2)) as ok', [namespace, name]);
    if (!res.rows[0]?.ok) {
      client.release();
      return null;
    }
  } catch (error) {
    client.release(true);
    throw error;
  }
  let lost = false;
  const onError = () => (lost = true);
  client.on('error', onError);
  return {
    held: () => !lost,
    async release() {
      // The pool reuses this client: a listener left behind would pile up, one per lock taken on it
      // (MaxListenersExceededWarning after ten).
      let broken = lost;
      if (!broken) {
        try {
          await client.query('select pg_advisory_unlock($1::int, hashtext($2))', [namespace, name]);
        } catch {
          broken = true;
        }
      }
      client.off('error', onError);
      client.release(broken || lost ? true : undefined);
    },
  };
}

/**
 * `tryLock`, tried again every `everyMs` until `waitMs` have passed (null then). For short work that
 * should queue behind another holder rather than fail at once; a session lock cannot block on a
 * connection of its own in PGlite's single session, so this polls in both modes.
 */
export async function waitForLock(database: Database, namespace: number, name: string, waitMs: number, everyMs = 25): Promise<SessionLock | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = await tryLock(database, namespace, name);
    if (lock || Date.now() >= deadline) return lock;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
