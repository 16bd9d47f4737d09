import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { BoundedMap } from '@oj/infra/bounded-map';
import type { Database } from '@oj/infra/db/database';
import { listenChannel, type ChannelListener } from '@oj/infra/db/listen';
import { findUserByUid, type UserRecord } from './users.ts';

/** The channel the users and subscriptions triggers notify (migration 202611231200_identity_principal_notify). */
export const PRINCIPALS_CHANNEL = 'oj_principals';
const BARRIER = 'barrier:';
const SETTLE_TIMEOUT_MS = 5000;

/** Every cache of this process, so that a write made here is forgotten here before its answer goes out. */
const caches = new Set<PrincipalCache>();

/**
 * The users behind access tokens, kept between requests so that authenticating is not a database round
 * trip each time (a third of a command's statements). Kept fresh by the database itself: triggers on
 * users and subscriptions NOTIFY the user's uid on every change, whoever makes it (this gateway, another
 * one, the admin CLI, psql), and the cache forgets that user. Within this process a write forgets at
 * once (`forgetPrincipal`); elsewhere the notification arrives a round trip after the commit.
 *
 * It answers from memory only while its LISTEN session is up, since a broken session may have missed
 * notifications: until a new session listens, every lookup reads the database, as if there were no
 * cache. A read that overlapped any forget is not kept (it may have read the row before the change). The
 * record is cached, not the principal: the principal is computed per request, so a subscription that
 * runs out at its period end stops at that moment by the clock.
 */
export class PrincipalCache {
  readonly #database: Database;
  readonly #load: (uid: string) => Promise<UserRecord | undefined>;
  readonly #entries: BoundedMap<string, UserRecord>;
  readonly #listener: ChannelListener;
  readonly #barriers = new Map<string, () => void>();
  /**
   * Bumped by every forget, and so by every change of the session (live and lost forget everything): a
   * read that started before one must not be kept.
   */
  #generation = 0;

  constructor(database: Database, options: { max?: number; retryMs?: number; load?: (uid: string) => Promise<UserRecord | undefined> } = {}) {
    this.#database = database;
    this.#load = options.load ?? ((uid) => findUserByUid(database.db, uid));
    this.#entries = new BoundedMap(options.max ?? 10_000);
    this.#listener = listenChannel(database, PRINCIPALS_CHANNEL, {
      notify: (payload) => (payload.startsWith(BARRIER) ? this.#barriers.get(payload)?.() : this.forget(payload)),
      // Whatever changed while no session listened was announced to nobody.
      live: () => this.forgetAll(),
      lost: () => this.forgetAll(),
    }, options.retryMs === undefined ? {} : { retryMs: options.retryMs });
    caches.add(this);
  }

  /** Whether lookups can be answered from memory now. */
  get isLive(): boolean {
    return this.#listener.isLive;
  }

  async find(uid: string): Promise<UserRecord | undefined> {
    const live = this.#listener.isLive;
    if (live) {
      const hit = this.#entries.get(uid);
      if (hit) return hit;
    }
    const generation = this.#generation;
    const user = await this.#load(uid);
    if (user && live && generation === this.#generation) this.#entries.set(uid, user);
    return user;
  }

  forget(uid: string): void {
    this.#generation += 1;
    this.#entries.delete(uid);
  }

  forgetAll(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  /**
   * Resolves once every change committed before the call has reached this cache: a NOTIFY of its own
   * comes back behind them (PostgreSQL delivers notifications in commit order). For code that changes
   * users behind the gateway's back and must see the change on its next request (tests, the admin CLI
   * in process). If the round trip does not come back in time, the cache forgets everything instead.
   */
  async settled(): Promise<void> {
    if (!this.#listener.isLive) return;
    const token = `${BARRIER}${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<boolean>((resolve) => {
      this.#barriers.set(token, () => resolve(true));
      timer = setTimeout(() => resolve(false), SETTLE_TIMEOUT_MS);
    });
    try {
      await sql`select pg_notify(${PRINCIPALS_CHANNEL}, ${token})`.execute(this.#database.db);
      if (!(await arrived)) this.forgetAll();
    } finally {
      clearTimeout(timer);
      this.#barriers.delete(token);
    }
  }

  async close(): Promise<void> {
    caches.delete(this);
    this.forgetAll();
    await this.#listener.close();
  }
}

/** A write to a user or a subscription in this process: forgotten before the write's answer goes out. */
export function forgetPrincipal(uid: string): void {
  for (const cache of caches) cache.forget(uid);
}
