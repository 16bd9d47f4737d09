import type { Kysely } from 'kysely';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import { physicalTables } from '@oj/projections/runtime/projection';
import { tradesProjection } from '@oj/projections/trades/projection';
import { smallJournal } from '@oj/projections/trades/testing';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * The trade read models the views read, on a test app's database: the projection's current version
 * made and registered live (one lane), as a first projector would, with `events` applied to it in one
 * live batch. The projector itself is exercised in its own tests.
 */
export async function liveTradeViews(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void> {
  const tables = physicalTables(tradesProjection, tradesProjection.version);
  await tradesProjection.createTables(db, tables);
  await db
    .insertInto('projection_registry')
    .values({ name: tradesProjection.name, version: tradesProjection.version, code_version: tradesProjection.version, status: 'live', lanes: 1, tables: JSON.stringify(tables) })
    .execute();
  await db.transaction().execute((trx) => tradesProjection.apply({ trx, tables, mode: 'live' }, events));
}

/**
 * A test app at `now` whose first two signed-in users own the small journal's trades
 * (projections/src/trades/testing.ts), made live: where the trade views' tests start.
 */
export async function smallJournalApp(label: string, now: string): Promise<{ t: TestApp; me: SignedIn; other: SignedIn }> {
  const t = await createTestApp({ label, now });
  const me = await signInAs(t);
  const other = await signInAs(t);
  await liveTradeViews(t.db.db, smallJournal(me.userId, other.userId).events);
  return { t, me, other };
}
type SignedIn = Awaited<ReturnType<typeof signInAs>>;
