import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createPGliteDatabase, createTestDatabase } from '@oj/infra/testing/postgres';
import type { Database } from '@oj/infra/db/database';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { migrations as runtimeMigrations } from '../runtime/migrations.ts';
import type { Projection } from '../runtime/projection.ts';
import { applyLaneBatch, guardRevisions } from '../runtime/apply.ts';
import { laneOf, rowPosition } from '../runtime/lanes.ts';
import { abandon, diff, rebuild } from '../runtime/rebuild.ts';
import { readRegistry } from '../runtime/registry.ts';
import { recomputeAllDays } from '../daily-premium/tables.ts';
import { tradesProjection } from './projection.ts';
import { smallJournal } from './testing.ts';

/**
 * A rebuild's bulk run folded in memory a segment at a time (`bulkRun`): whatever the segment size,
 * and whether the run went through in one go, was killed between two segments and resumed, or resumed on
 * a version an older rebuild had written past its checkpoint, the rebuilt version equals the version the
 * lanes built live (one event per batch), row for row. Lineages span segments (the journals are
 * interleaved), so the events of a stream begun in an earlier segment go through `apply` on top of what
 * that segment wrote.
 */
describe.each(['postgres', 'pglite'] as const)('rebuild in segments on %s', (mode) => {
  const LANES = 2;
  let database: Database & { drop?: () => Promise<void> };
  let store: PostgresEventStore;
  let events: StoredEvent[] = [];
  const deps = (projection: Projection = tradesProjection) => ({ database, eventStore: store, projections: [projection], lanes: LANES });

  beforeAll(async () => {
    database = mode === 'postgres' ? await createTestDatabase('trades_bulk_segments') : await createPGliteDatabase();
    await migrateToLatest(database.db, [storeMigrations, runtimeMigrations]);
    store = new PostgresEventStore(database);
    // The live version exists before the first event, as on a new deployment.
    await rebuild(deps(), tradesProjection.name);
    // Four journals interleaved event by event: every kind of action, with lineages spread over the log.
    const journals = [smallJournal('seg-a', 'seg-b'), smallJournal('seg-c', 'seg-d'), smallJournal('seg-e', 'seg-f'), smallJournal('seg-g', 'seg-h')].map((j) => j.events);
    let last: LogPosition = START;
    for (let i = 0; journals.some((j) => i < j.length); i++) {
      for (const j of journals) {
        const e = j[i];
        if (!e) continue;
        last = (await store.append(e.streamId, [{ id: crypto.randomUUID(), type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata }], e.revision === 0 ? 'no_stream' : e.revision - 1)).position;
      }
    }
    while (comparePositions(events.at(-1)?.position ?? START, last) < 0) events = await store.readAll({ limit: 10_000, streamPrefixes: ['trade-'] });
    // Live: every event its own lane batch.
    const prev = new Map<number, LogPosition>();
    for (const e of events) {
      const lane = laneOf(e.metadata.userId, LANES);
      await applyLaneBatch(database.db, [tradesProjection], { lane, prev: prev.get(lane) ?? START, events: [e] });
      prev.set(lane, e.position);
    }
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    if (database?.drop) await database.drop();
    else await database?.close();
  });

  /** The building version against the live one: every table identical. */
  async function expectIdentical(): Promise<void> {
    const tables = await diff(deps(), tradesProjection.name);
    expect(tables.map((t) => t.table).sort()).toEqual([...tradesProjection.tables].sort());
    for (const t of tables) {
      expect({ table: t.table, onlyInLive: t.sampleOnlyInLive, onlyInOther: t.sampleOnlyInOther, totals: t.totals, rows: t.rowsLive - t.rowsOther }).toEqual({
        table: t.table,
        onlyInLive: [],
        onlyInOther: [],
        totals: [],
        rows: 0,
      });
    }
    // Every stream has its guard row at its last revision in the rebuilt version.
    const building = (await readRegistry(database.db, tradesProjection.name)).find((r) => r.status === 'building')!;
    const guard = await sql<{ stream_id: string; revision: number }>`select stream_id, revision from projection_stream_revisions
      where projection = ${tradesProjection.name} and version = ${building.version} order by stream_id`.execute(database.db);
    const last = new Map<string, number>();
    for (const e of events) last.set(e.streamId, e.revision);
    expect(guard.rows.map((r) => [r.stream_id, Number(r.revision)])).toEqual([...last].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  it.each([1, 3, 7, 40, 100_000])('segments of %i events (batches of 5) equal the live version', async (segmentEvents) => {
    expect(events.length).toBeGreaterThan(60);
    const [result] = await rebuild(deps(), tradesProjection.name, { switch: false, batchSize: 5, segmentEvents });
    expect(result!.eventsApplied).toBe(events.length);
    await expectIdentical();
    await abandon(deps(), tradesProjection.name);
  });

  it.runIf(mode === 'pglite')('gives the event loop a turn after every batch read, so the one-threaded embedded process answers meanwhile', async () => {
    let turns = 0;
    let reads = 0;
    const timer = setInterval(() => turns++, 0);
    try {
      await rebuild(deps(), tradesProjection.name, { switch: false, batchSize: 5, onProgress: (p) => void (p.phase === 'building' && p.eventsDone > 0 && reads++) });
    } finally {
      clearInterval(timer);
    }
    // A timer of 0 ms fires on a turn of the loop: at least one turn per two batches read.
    expect(reads).toBeGreaterThan(10);
    expect(turns).toBeGreaterThanOrEqual(reads / 2);
    await expectIdentical();
    await abandon(deps(), tradesProjection.name);
  });

  it.runIf(mode === 'postgres')('the day records of the finishing step, in worker threads that claim one user at a time, equal the live version', async () => {
    await rebuild(deps(), tradesProjection.name, { switch: false });
    const building = (await readRegistry(database.db, tradesProjection.name)).find((r) => r.status === 'building')!;
    const tables = { trades: building.tables.trades!, split_history: building.tables.split_history!, daily_premium: building.tables.daily_premium! };
    const days = await recomputeAllDays(database, tables, { chunkTrades: 1, workers: 3 });
    expect(days).toBe(Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(tables.daily_premium)}`.execute(database.db)).rows[0]!.n));
    expect(days).toBeGreaterThan(8);
    await expectIdentical();
    await abandon(deps(), tradesProjection.name);
  });

  it.runIf(mode === 'postgres')('a day records worker that fails fails the finishing step with its error, after every worker ended', async () => {
    await rebuild(deps(), tradesProjection.name, { switch: false });
    const building = (await readRegistry(database.db, tradesProjection.name)).find((r) => r.status === 'building')!;
    const refused = `${building.tables.daily_premium}_refusing`;
    await sql`create table ${sql.table(refused)} (like ${sql.table(building.tables.daily_premium!)} including all)`.execute(database.db);
    await sql`alter table ${sql.table(refused)} add constraint no_rows check (false)`.execute(database.db);
    try {
      await expect(recomputeAllDays(database, { trades: building.tables.trades!, split_history: building.tables.split_history!, daily_premium: refused }, { chunkTrades: 1, workers: 2 })).rejects.toThrow(/no_rows/);
      expect((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(refused)}`.execute(database.db)).rows[0]!.n).toBe(0);
      // Every worker's connection is closed: none of them is left writing after the step failed.
      const others = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`.execute(database.db);
      expect(others.rows[0]!.n).toBe(0);
    } finally {
      await sql`drop table ${sql.table(refused)}`.execute(database.db);
      await abandon(deps(), tradesProjection.name);
    }
  });

  /** The trades projection, but the `failAt`-th segment's write fails (a process killed mid-run). */
  const failingAt = (failAt: number): Projection => {
    let writes = 0;
    return {
      ...tradesProjection,
      bulkRun(database) {
        const run = tradesProjection.bulkRun!(database);
        return {
          close: () => run.close?.() ?? Promise.resolve(),
          segment() {
            const segment = run.segment();
            return {
              add: (e) => segment.add(e),
              async write(t, tables, continued) {
                await segment.write(t, tables, continued);
                if (++writes === failAt) throw new Error('killed mid-run');
              },
            };
          },
        };
      },
    };
  };
  const rebuildState = async () =>
    (await sql<{ commit: string; prepare: string; done: number }>`select commit::text as commit, prepare::text as prepare, events_done::int as done
      from projection_rebuilds r join projection_registry g on g.name = r.projection and g.version = r.version
      where g.name = ${tradesProjection.name} and g.status = 'building'`.execute(database.db)).rows[0]!;

  it('killed during a segment write, then resumed: the failed segment left nothing, the resumed run equals the live version', async () => {
    await expect(rebuild(deps(failingAt(3)), tradesProjection.name, { switch: false, batchSize: 5, segmentEvents: 20 })).rejects.toThrow('killed mid-run');
    // Two segments of 20 committed; the third rolled back with its checkpoint.
    const state = await rebuildState();
    expect(state.done).toBe(40);
    expect(comparePositions(rowPosition(state), events[39]!.position)).toBe(0);
    const [resumed] = await rebuild(deps(), tradesProjection.name, { switch: false, batchSize: 5, segmentEvents: 20 });
    expect(resumed!.resumedFrom).not.toBeNull();
    expect(resumed!.eventsApplied).toBe(events.length - 40);
    await expectIdentical();
    await abandon(deps(), tradesProjection.name);
  });

  it('resumed on a version an older rebuild wrote past its checkpoint: what it holds is not written twice', async () => {
    await expect(rebuild(deps(failingAt(2)), tradesProjection.name, { switch: false, batchSize: 5, segmentEvents: 30 })).rejects.toThrow('killed mid-run');
    expect((await rebuildState()).done).toBe(30);
    // As a partition of the earlier per-batch rebuild committed before its checkpoint moved: the next
    // 25 events applied to the version, behind the stream guard, with the checkpoint left at 30.
    const building = (await readRegistry(database.db, tradesProjection.name)).find((r) => r.status === 'building')!;
    await database.db.transaction().execute(async (trx) => {
      const fresh = await guardRevisions(trx, building, events.slice(30, 55));
      await tradesProjection.apply({ trx, tables: building.tables, mode: 'bulk' }, fresh);
    });
    const [resumed] = await rebuild(deps(), tradesProjection.name, { switch: false, batchSize: 5, segmentEvents: 1000 });
    expect(resumed!.resumedFrom).not.toBeNull();
    expect(resumed!.eventsApplied).toBe(events.length - 55);
    await expectIdentical();
    await abandon(deps(), tradesProjection.name);
  });

});
