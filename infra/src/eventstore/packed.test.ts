import { describe, expect, it } from 'vitest';
import { indexPacked, packEvents, unpackEvent, unpackFoldEvent } from './packed.ts';
import type { JsonDataEvent } from './port.ts';

/**
 * The packed read's rows (`packed.ts`). That PostgreSQL's `COPY` writes what `readAll` reads, on every
 * adapter, is the event store's contract ("reads packed"); here, the format's edges.
 */

const event = (n: number, over: Partial<JsonDataEvent> = {}): JsonDataEvent => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type: 'TradeOpened',
  schemaVersion: 2,
  data: JSON.stringify({ n, notes: 'Straddle on ÉTF — 💹' }),
  metadata: { userId: `user-${n % 3}`, recordedAt: '2026-11-20T15:00:00.000Z' },
  streamId: `trade-user-${n % 3}.L${n}`,
  revision: n % 4,
  position: { commit: 2n ** 63n + BigInt(n), prepare: BigInt(n) - 2n },
  ...over,
});

describe('packed events', () => {
  it('packs and unpacks every field, an id that is not a uuid, a missing user, and positions past 2^63', () => {
    const events = [event(1), event(2, { id: 'e2', metadata: { userId: null as unknown as string, recordedAt: '2026-11-21T00:00:00.000Z' } }), event(3, { data: 'null' })];
    const packed = packEvents(events);
    expect(packed.offsets).toHaveLength(3);
    expect(packed.streamIds).toEqual(events.map((e) => e.streamId));
    expect([...packed.revisions]).toEqual(events.map((e) => e.revision));
    expect(packed.last).toEqual(events[2]!.position);
    expect(Array.from(packed.offsets, (o) => unpackEvent(packed.bytes, o))).toEqual(events);
    const { id: _, position: __, ...fold } = events[1]!;
    expect(unpackFoldEvent(packed.bytes, packed.offsets[1]!)).toEqual(fold);
    // A buffer of its own, which a worker can be handed.
    expect(packed.bytes.byteOffset).toBe(0);
    expect(packed.bytes.buffer.byteLength).toBe(packed.bytes.length);
  });

  it('an empty read has no last position', () => {
    const packed = packEvents([]);
    expect(packed.offsets).toHaveLength(0);
    expect(packed.last).toBeNull();
  });

  it('refuses what is not its rows: another signature, another field count, bytes after the trailer', () => {
    const good = packEvents([event(1)]).bytes;
    const signature = Buffer.from(good);
    signature[0] = 0;
    expect(() => indexPacked(signature)).toThrow('the signature is missing');
    const fields = Buffer.from(good);
    fields.writeInt16BE(9, 19);
    expect(() => indexPacked(fields)).toThrow('A packed event has 9 fields, not 10');
    expect(() => indexPacked(Buffer.concat([good, Buffer.from([0])]))).toThrow('goes on after its trailer');
  });
});
