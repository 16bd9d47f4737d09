import type { Kysely } from 'kysely';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import { physicalTables } from '@oj/projections/runtime/projection';
import { tradesProjection } from '@oj/projections/trades/projection';

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
