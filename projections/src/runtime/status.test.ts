import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, type LogPosition } from '@oj/infra/eventstore/port';
import { migrations } from './migrations.ts';
import { countingProjection } from './test-projection.ts';
import { startProjector } from './projector.ts';
import { readRegistry } from './registry.ts';
import { formatStatus, projectionsStatus } from './status.ts';

/**
 * `npm run projections -- status` (QA): a live version the projector created at start-up has no row
 * counts in its registry row, and they are counted as the console counts them; a live version the
 * running code cannot project (version skew) has no measured lag, and says so instead of "caught up".
 */
describe('projections status', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  beforeAll(async () => {
    database = await createTestDatabase('projections_status');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('counts the rows of a version built at start-up, and calls the lag of a skewed live version unknown', async () => {
    const v1 = countingProjection({ name: 'status_counts', version: 1 });
    const projector = await startProjector({
      config: { PROJECTOR_LANES: 2, REDIS_URL: undefined },
      database,
      eventStore: store,
      logger: pino({ level: 'silent' }),
      metrics: new Registry(),
      projections: [v1],
      pollMs: 20,
      rebuilds: false,
    });
    let last: LogPosition = START;
    try {
      for (let i = 0; i < 6; i++) {
        const user = `u-${i % 3}`;
        last = (
          await store.append(
            `trade-${user}.l${i % 2}`,
            [{ id: randomUUID(), type: `E${i}`, schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
            'any',
          )
        ).position;
      }
      await projector.waitFor(last, 20_000);
    } finally {
      await projector.stop();
    }
    // The projector made it live at start-up: its registry row holds no counts.
    expect((await readRegistry(database.db, 'status_counts')).map((r) => [r.version, r.status, r.counts])).toEqual([[1, 'live', {}]]);
    const deps = { database, eventStore: store, projections: [v1], lanes: 2 };
    const status = await projectionsStatus(deps, 'in-process');
    const p = status.projections.find((x) => x.name === 'status_counts')!;
    expect(p.versions[0]!.counts).toEqual({ stream_counts: 6, user_sequences: 3 });
    expect(p.lagUnknown).toBeUndefined();
    expect(formatStatus(status)).toContain('v1 live     formulas v1 tables stream_counts_v1, user_sequences_v1  rows stream_counts=6 user_sequences=3');
    expect(formatStatus(status)).toContain('  lag: caught up');

    // The code now has formulas v2 while v1 is live: this code projects nothing of it, its lag is unknown.
    const skewed = await projectionsStatus({ ...deps, projections: [countingProjection({ name: 'status_counts', version: 2 })] }, 'in-process');
    const s = skewed.projections.find((x) => x.name === 'status_counts')!;
    expect(s.lag).toEqual([]);
    expect(s.lagUnknown).toBe('unknown: live v1 was built by formulas v1 and the code runs formulas v2 (version skew), so this code does not project it');
    const text = formatStatus(skewed);
    expect(text).toContain('  lag: unknown: live v1 was built by formulas v1 and the code runs formulas v2 (version skew)');
    expect(text).not.toContain('caught up');
    // A read model never projected (a journal seeded or restored before any start): no lag is measured,
    // and it says so instead of "caught up" while every event waits (QA 71).
    const never = (await projectionsStatus({ ...deps, projections: [v1, countingProjection({ name: 'status_never', version: 1 })] }, 'in-process')).projections.find((x) => x.name === 'status_never')!;
    expect([never.warning, never.lagUnknown]).toEqual(['no live version', 'none measured: no version is live yet, so no read model shows the journal; the projector builds one at its next start, or run `rebuild status_never`']);
    expect(formatStatus({ ...status, projections: [never] })).not.toContain('caught up');
    // A read model the running code does not have at all.
    const gone = (await projectionsStatus({ ...deps, projections: [] }, 'in-process')).projections.find((x) => x.name === 'status_counts')!;
    expect(gone.lagUnknown).toBe('unknown: the running code has no status_counts read model, so it does not project live v1');

    // Run with another PROJECTOR_LANES than the deployment's: the lanes are the dispatcher's recorded count,
    // the lag is measured with it, and the difference is said (QA: "lanes 4" where the projectors route with 6).
    const other = await projectionsStatus({ ...deps, lanes: 5 }, 'in-process');
    expect(other.lanes).toBe(2);
    expect(other.configuredLanes).toBe(5);
    expect(other.projections.find((x) => x.name === 'status_counts')!.lag.map((l) => l.lane)).toEqual([0, 1]);
    expect(formatStatus(other).split('\n')[0]).toBe('lanes 2, transport in-process (the dispatcher routes with 2 lanes; PROJECTOR_LANES here is 5: give every process of the deployment the same value)');
    expect(status.configuredLanes).toBeUndefined();
    expect(formatStatus(status).split('\n')[0]).toBe('lanes 2, transport in-process');

    // A complete build waiting for its switch is "built" on its version line, as the console says; a
    // stopped rebuild never reads more events done than in all (QA: "v204 building", "5736/5709 events").
    const at = new Date(0).toISOString();
    const rebuild = { checkpoint: '00000000000000000001-00000000000000000001', startedAt: at, updatedAt: at, finishedAt: null };
    const waiting = structuredClone(status);
    const w = waiting.projections.find((x) => x.name === 'status_counts')!;
    w.versions.push({ ...w.versions[0]!, version: 2, status: 'building' });
    w.versions.push({ ...w.versions[0]!, version: 3, status: 'building' });
    w.rebuilds = [
      { ...rebuild, version: 2, eventsDone: 9, eventsTotal: 9, builtAt: at },
      { ...rebuild, version: 3, eventsDone: 5736, eventsTotal: 5709, builtAt: null },
    ];
    const lines = formatStatus(waiting).split('\n');
    expect(lines.find((l) => l.startsWith('  v2 '))).toMatch(/^ {2}v2 built {4}formulas v1/);
    expect(lines.find((l) => l.startsWith('  v3 '))).toMatch(/^ {2}v3 building formulas v1/);
    expect(lines).toContain('  rebuild of v3 in progress/stopped at 00000000000000000001-00000000000000000001: 5736/5736 events (resume: rebuild status_counts)');
    expect(lines).toContain('  v2 built, not switched: compare with `diff status_counts`, then `switch status_counts 2`');
    // Built by another release's code (QA 75: an older projector took a newer release's rebuild job): this
    // code refuses its switch, so status does not advise one.
    const byOther = structuredClone(waiting);
    byOther.projections.find((x) => x.name === 'status_counts')!.versions.find((v) => v.version === 2)!.codeVersion = 102;
    byOther.projections.find((x) => x.name === 'status_counts')!.codeVersion = 203;
    expect(formatStatus(byOther).split('\n')).toContain(
      '  v2 built, not switched: status_counts v2 was built by formulas v1 (code v102) and the code runs formulas v2 (code v203): it cannot catch up. Abandon it (`abandon status_counts --version 2`), then rebuild with this release.',
    );
  }, 60_000);
});
