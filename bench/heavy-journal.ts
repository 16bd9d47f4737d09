import { sql } from 'kysely';
import { generateJournal } from './journal-generator.ts';
import type { E2eServer } from '../web/e2e/support/server.ts';

const log = (...a: unknown[]) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

async function json<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return body;
}

export interface HeavyTrader {
  email: string;
  password: string;
  uid: string;
  /** The heavy user's rows in the live trades read model once the projector has applied every event. */
  trades: number;
}

/**
 * A trader who signs up and verifies through the API, then owns `heavyUserLineages` of a synthetic journal
 * of `events` events (two years of weekdays; everyone else's trades spread over 200 other users), written
 * straight into the event store of the running product; returns once the projector has applied them all.
 * The consoles' benches (dashboard, trade-list) read their screens for this trader.
 */
export async function seedHeavyTrader(server: E2eServer, options: { events: number; heavyUserLineages: number }): Promise<HeavyTrader> {
  const email = `heavy.${Date.now()}@example.com`;
  const password = 'Wheel#2024a';
  const api = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}/api/v1${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });
  await json(await api('/users/signup', { method: 'POST', body: JSON.stringify({ name: 'Heavy Trader', email, password, agreed_to_terms: true }) }));
  const link = await server.waitForLink('/users/account-verify', { to: email });
  await json(await api(`/users/verify/${new URL(link).searchParams.get('token')}`));
  const login = await json<{ access_token: string; user: { uid: string } }>(await api('/users/login', { method: 'POST', body: JSON.stringify({ email, password }) }));

  log(`writing ${options.events} events (heavy user ${login.user.uid})`);
  const db = server.runtime.deps.database.db;
  let batch: unknown[] = [];
  const flush = async () => {
    if (!batch.length) return;
    await sql`insert into events (stream_id, revision, event_id, type, schema_version, data, metadata)
      select stream_id, revision, event_id, type, schema_version, data, metadata
      from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as x(stream_id text, revision int, event_id uuid, type text, schema_version int, data jsonb, metadata jsonb)`.execute(db);
    batch = [];
  };
  for (const g of generateJournal({ totalEvents: options.events, users: 200, heavyUserLineages: options.heavyUserLineages, heavyUserId: login.user.uid })) {
    batch.push({ stream_id: g.streamId, revision: g.revision, event_id: g.event.id, type: g.event.type, schema_version: g.event.schemaVersion, data: g.event.data, metadata: g.event.metadata });
    if (batch.length >= 5000) await flush();
  }
  await flush();
  await sql`select pg_notify('events', '')`.execute(db).catch(() => undefined);

  log('waiting for the projector');
  const started = performance.now();
  // Done when the lanes together have applied every trade event of the log.
  for (;;) {
    const { rows } = await sql<{ applied: number; total: number }>`
      select (select coalesce(sum(events_applied), 0)::bigint from projection_checkpoints where projection = 'trades') as applied,
             (select count(*)::bigint from events where stream_id like 'trade-%') as total`.execute(db);
    const { applied, total } = rows[0]!;
    if (Number(applied) >= Number(total)) break;
    if (performance.now() - started > 1_800_000) throw new Error('the projector did not finish in 30 minutes');
    await new Promise((r) => setTimeout(r, 2000));
  }
  const live = (await sql<{ tables: { trades: string } }>`select tables from projection_registry where status = 'live'`.execute(db)).rows[0]!.tables.trades;
  const count = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(live)} where user_id = ${login.user.uid}`.execute(db);
  const trades = count.rows[0]?.n ?? 0;
  log(`projected: ${trades} trades of the heavy user in ${Math.round((performance.now() - started) / 1000)} s`);
  return { email, password, uid: login.user.uid, trades };
}
