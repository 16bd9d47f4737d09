import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createPGliteDatabase } from '../testing/postgres.ts';
import { createEventStore, upcastJournalEvent } from './create.ts';
import type { StoredEvent } from './port.ts';

const env = { JWT_SECRET: 'x'.repeat(40), NODE_ENV: 'test' } as const;

describe('createEventStore', () => {
  let database: Database;
  beforeAll(async () => {
    database = await createPGliteDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  it('uses the PostgreSQL adapter on the given database when EVENTSTORE_URL is unset', async () => {
    const store = await createEventStore(loadConfig(env), database);
    expect(store.kind).toBe('pglite');
    await store.close();
  });

  it('uses EventStoreDB when EVENTSTORE_URL is set (connecting lazily)', async () => {
    const store = await createEventStore(loadConfig({ ...env, EVENTSTORE_URL: 'kurrentdb://127.0.0.1:1?tls=false' }), database);
    expect(store.kind).toBe('eventstoredb');
    await store.close();
  });
});

describe('upcastJournalEvent', () => {
  const stored = (type: string, schemaVersion: number): StoredEvent => ({
    id: '0190f0a0-0000-7000-8000-000000000000',
    type,
    schemaVersion,
    data: { tradeId: 't' },
    metadata: { userId: 'u', actor: { id: 'u', role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: '2026-11-20T15:00:00.000Z', businessDate: '2026-11-20' },
    streamId: 'trade-u.l',
    revision: 0,
    position: { commit: 1n, prepare: 1n },
  });

  it('leaves current journal events and foreign types as they are', () => {
    const current = stored('TradeDeleted', 1);
    expect(upcastJournalEvent(current)).toEqual(current);
    const foreign = stored('SomethingElse', 1);
    expect(upcastJournalEvent(foreign)).toBe(foreign);
  });

  it('refuses a journal event older than its upcasters reach rather than passing it on unchanged', () => {
    expect(() => upcastJournalEvent(stored('TradeDeleted', 0))).toThrow('No upcaster for TradeDeleted v0');
  });
});
