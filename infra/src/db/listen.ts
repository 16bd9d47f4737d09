import type pg from 'pg';
import type { Database } from './database.ts';

/**
 * LISTEN on one channel for as long as the caller wants, on PostgreSQL (a dedicated session, reopened
 * after it breaks) or PGlite (in process). Whoever relies on notifications to keep something fresh must
 * know when it could have missed some: `live` says from when every later commit's notification arrives,
 * `lost` says that guarantee ended (the session broke) until the next `live`.
 */
export interface ChannelHandlers {
  /** A notification on the channel, with its payload. */
  notify(payload: string): void;
  /** The session listens: from now on every notification committed later reaches `notify`. Again after each reconnect. */
  live?(): void;
  /** The session broke: notifications may be missed until the next `live`. */
  lost?(): void;
}

export interface ChannelListener {
  /** Whether the session currently listens (between `live` and `lost`). */
  readonly isLive: boolean;
  /** Stops listening; `lost` is not called for it. */
  close(): Promise<void>;
}

export interface ListenOptions {
  /** How long to wait before opening a new session after one broke or could not be opened. */
  retryMs?: number;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function listenChannel(database: Pick<Database, 'pool' | 'pglite'>, channel: string, handlers: ChannelHandlers, options: ListenOptions = {}): ChannelListener {
  // The name goes into a LISTEN statement, which takes no parameters.
  if (!CHANNEL_NAME.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  if (database.pool) return new PgChannelListener(database.pool, channel, handlers, options.retryMs ?? 1000);
  if (database.pglite) return new PgliteChannelListener(database.pglite, channel, handlers);
  throw new Error('listenChannel needs a PostgreSQL pool or a PGlite instance');
}

class PgChannelListener implements ChannelListener {
  readonly #pool: pg.Pool;
  readonly #channel: string;
  readonly #handlers: ChannelHandlers;
  readonly #retryMs: number;
  #client: pg.PoolClient | null = null;
  #connecting: Promise<void> | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(pool: pg.Pool, channel: string, handlers: ChannelHandlers, retryMs: number) {
    this.#pool = pool;
    this.#channel = channel;
    this.#handlers = handlers;
    this.#retryMs = retryMs;
    this.#connecting = this.#connect();
  }

  get isLive(): boolean {
    return this.#client !== null;
  }

  async #connect(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch {
      this.#scheduleRetry();
      return;
    }
    const broke = (error?: Error) => {
      if (this.#client !== client) return;
      this.#drop(error ?? new Error('LISTEN session ended'));
      this.#handlers.lost?.();
      this.#scheduleRetry();
    };
    client.on('notification', (message) => {
      if (this.#client === client && message.channel === this.#channel) this.#handlers.notify(message.payload ?? '');
    });
    client.on('error', broke);
    client.on('end', () => broke());
    try {
      await client.query(`listen ${this.#channel}`);
    } catch {
      client.release(true);
      this.#scheduleRetry();
      return;
    }
    if (this.#closed) {
      client.release(true);
      return;
    }
    this.#client = client;
    this.#handlers.live?.();
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (!this.#closed) this.#connecting = this.#connect();
    }, this.#retryMs);
    this.#retry.unref();
  }

  #drop(error?: Error): void {
    const client = this.#client;
    this.#client = null;
    // A session that ran LISTEN must not go back to the pool for someone else's queries.
    client?.release(error ?? true);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    await this.#connecting;
    this.#drop();
  }
}

class PgliteChannelListener implements ChannelListener {
  #unlisten: Promise<(() => Promise<void>) | null>;
  #live = false;

  constructor(pglite: NonNullable<Database['pglite']>, channel: string, handlers: ChannelHandlers) {
    // PGlite delivers a notification with the result of the statement that committed it, before that
    // statement's promise settles: nothing in this process can act on the change before `notify` ran.
    this.#unlisten = pglite.listen(channel, (payload) => handlers.notify(payload)).then(
      (unlisten) => {
        this.#live = true;
        handlers.live?.();
        return unlisten;
      },
      () => null,
    );
  }

  get isLive(): boolean {
    return this.#live;
  }

  async close(): Promise<void> {
    const unlisten = await this.#unlisten;
    this.#live = false;
    await unlisten?.().catch(() => undefined);
  }
}
