import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.ts';

interface Item {
  key: string;
  weight?: number;
  fail?: boolean;
}

/** A writer whose writes end when the test says so; it records every write's items. */
function gatedWriter() {
  const writes: Item[][] = [];
  const gates: (() => void)[] = [];
  const write = async (items: Item[]) => {
    writes.push(items);
    await new Promise<void>((r) => gates.push(r));
    if (items.some((i) => i.fail)) throw new Error('write failed');
    return items.map((i) => `${i.key}@${writes.length}`);
  };
  const release = async () => {
    const gate = gates.shift();
    if (!gate) throw new Error('no write in flight');
    gate();
    // Let the ended write settle and the next one start.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  };
  return { writes, write, release };
}

const group = (w: ReturnType<typeof gatedWriter>, maxInFlight = 1, maxWeight = 100) =>
  new GroupCommit<Item, string>(w.write, (i) => i.key, (i) => i.weight ?? 1, { maxInFlight, maxWeight });

describe('GroupCommit', () => {
  it('writes an item at once when nothing is in flight, and what arrives meanwhile together after it', async () => {
    const w = gatedWriter();
    const g = group(w);
    const first = g.submit({ key: 'a' });
    expect(w.writes).toEqual([[{ key: 'a' }]]);
    const rest = ['b', 'c', 'd'].map((key) => g.submit({ key }));
    expect(w.writes).toHaveLength(1);
    await w.release();
    expect(await first).toBe('a@1');
    expect(w.writes[1]!.map((i) => i.key)).toEqual(['b', 'c', 'd']);
    await w.release();
    expect(await Promise.all(rest)).toEqual(['b@2', 'c@2', 'd@2']);
    await g.idle();
  });

  it('never writes one key twice in a write, nor in two writes at a time', async () => {
    const w = gatedWriter();
    const g = group(w, 2);
    const a1 = g.submit({ key: 'a' });
    const a2 = g.submit({ key: 'a' });
    const b = g.submit({ key: 'b' });
    // Two slots: 'a' is written, its second item waits for it, 'b' takes the other slot.
    expect(w.writes.map((ws) => ws.map((i) => i.key))).toEqual([['a'], ['b']]);
    await w.release();
    expect(await a1).toBe('a@2');
    expect(w.writes.map((ws) => ws.map((i) => i.key))).toEqual([['a'], ['b'], ['a']]);
    await w.release();
    await w.release();
    expect(await Promise.all([a2, b])).toEqual(['a@3', 'b@3']);
  });

  it('keeps a write under maxWeight, except an item heavier than it, which goes alone', async () => {
    const w = gatedWriter();
    const g = group(w, 1, 10);
    const all = [g.submit({ key: 'x' }), g.submit({ key: 'a', weight: 6 }), g.submit({ key: 'b', weight: 6 }), g.submit({ key: 'c', weight: 4 }), g.submit({ key: 'd', weight: 30 })];
    for (let i = 0; i < 4; i++) await w.release();
    await Promise.all(all);
    expect(w.writes.map((ws) => ws.map((i) => i.key))).toEqual([['x'], ['a', 'c'], ['b'], ['d']]);
  });

  it("keeps one key's items in order when the first of them does not fit a write", async () => {
    const w = gatedWriter();
    const g = group(w, 1, 10);
    // Two appends to stream 's' (the second expects the first's revision): the first does not fit
    // beside 'a', the second would; it must not be written before the first.
    const all = [g.submit({ key: 'x' }), g.submit({ key: 'a', weight: 6 }), g.submit({ key: 's', weight: 6 }), g.submit({ key: 's', weight: 1 })];
    for (let i = 0; i < w.writes.length; i++) await w.release();
    await Promise.all(all);
    expect(w.writes.map((ws) => ws.map((i) => `${i.key}${i.weight ?? 1}`))).toEqual([['x1'], ['a6'], ['s6'], ['s1']]);
  });

  it('rejects every item of a failed write, and goes on with the next', async () => {
    const w = gatedWriter();
    const g = group(w);
    const first = g.submit({ key: 'a' });
    const failing = Promise.allSettled([g.submit({ key: 'b' }), g.submit({ key: 'c', fail: true })]);
    const later = g.submit({ key: 'b' });
    await w.release();
    await first;
    await w.release();
    for (const r of await failing) expect(r).toMatchObject({ status: 'rejected', reason: new Error('write failed') });
    await w.release();
    expect(await later).toBe('b@3');
  });

  it('idle() waits for every submitted item', async () => {
    const w = gatedWriter();
    const g = group(w);
    let done = false;
    const items = [g.submit({ key: 'a' }), g.submit({ key: 'b' })];
    const idle = g.idle().then(() => (done = true));
    await w.release();
    expect(done).toBe(false);
    await w.release();
    await idle;
    await Promise.all(items);
    expect(done).toBe(true);
  });
});
