import { describe, expect, it } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyLineage, type LineageState } from '@oj/contracts/lineage-fold';
import type { TradeRecord } from '@oj/contracts/trade-record';
import { codeFingerprint, fileOf, moduleClosure } from './replay-code.ts';
import { decodeDays, decodeLineages, encodeDays, encodeLineages, sameStructure } from './state-codec.ts';
import { tradeRecord } from './testing.ts';

const record = tradeRecord;

const lineage = (trades: TradeRecord[]): LineageState => {
  const l = emptyLineage('u1', 'L1');
  l.revision = 4;
  for (const t of trades) l.trades.set(t.uid, t);
  l.splits.push({ auid: 'S1', userId: 'u1', lineageId: 'L1', trades: ['a', 'b'], su: 'bull-put-spread', gene: { tod: '2026-02-02', ed: '2026-03-20', cs: 1, pao: 120, cause: 'Leg 2 closed, Leg 1 remains open.' }, parent: { rf: 'R0', pf: null, sp: [400, 395], nd: 0.15 }, createdAt: '2026-02-03T15:00:00.000Z' });
  return l;
};

describe('stored replay state bytes', () => {
  it('tells apart what a reader could tell apart: key order, -0, Map order; not NaN from NaN', () => {
    expect(sameStructure({ a: 1, b: 2 }, { a: 1, b: 2 })).toBe(true);
    expect(sameStructure({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameStructure({ a: 0 }, { a: -0 })).toBe(false);
    expect(sameStructure({ a: Number.NaN }, { a: Number.NaN })).toBe(true);
    expect(sameStructure({ a: null }, { a: undefined })).toBe(false);
    expect(sameStructure({ a: null }, {})).toBe(false);
    expect(sameStructure([1, [2]], [1, [2]])).toBe(true);
    expect(sameStructure(new Map([['a', 1], ['b', 2]]), new Map([['b', 2], ['a', 1]]))).toBe(false);
    expect(sameStructure(new Map([['a', { x: 1 }]]), new Map([['a', { x: 1 }]]))).toBe(true);
    expect(sameStructure([1], { 0: 1 })).toBe(false);
  });

  it('decodes a lineage to the state that was encoded, key for key, closes and splits as they were', () => {
    const closed = record('b', { status: 2, close: { closeAction: 'close', closeDate: '2026-02-20', premiumAtClose: 60, netFeeToClose: 1.3, closeTransaction: 2 } as TradeRecord['close'], partialOf: 'a' });
    // A record that is not its lineage's (never made by the fold) is carried exactly all the same.
    const foreign = record('c', { lineageId: 'L9', userId: 'u9' });
    const state = lineage([record('a'), closed, foreign]);
    const back = decodeLineages('u1', encodeLineages('u1', [{ ordinal: 7, state }]));
    expect(back).toHaveLength(1);
    expect(back[0]!.ordinal).toBe(7);
    expect(sameStructure(back[0]!.state, state)).toBe(true);
    expect(() => decodeLineages('u2', encodeLineages('u1', [{ ordinal: 7, state }]))).toThrow(/for u1, read as format 1 for u2/);
    const days = [{ user_id: 'u1', income_date: '2026-02-20', np: 1, tickers: { SPY: 1 } }] as never[];
    expect(sameStructure(decodeDays('u1', encodeDays('u1', days)), days)).toBe(true);
  });

  it('does not carry what JSON cannot (a -0, a NaN, a field the fold gained): the round trip says so', () => {
    for (const odd of [record('a', { premiumAtOpen: -0 }), record('a', { netDelta: Number.NaN }), { ...record('a'), gained: 1 } as TradeRecord, { ...record('a', { rolledFrom: null }), uid: 'a' }]) {
      const state = lineage([odd]);
      const same = sameStructure(decodeLineages('u1', encodeLineages('u1', [{ ordinal: 0, state }]))[0]!.state, state);
      if ('gained' in odd || Object.is(odd.premiumAtOpen, -0) || Number.isNaN(odd.netDelta)) expect(same).toBe(false);
      else expect(same).toBe(true);
    }
    // Keys in another order than the fold's: also told apart.
    const { uid, ...rest } = record('a');
    expect(sameStructure(decodeLineages('u1', encodeLineages('u1', [{ ordinal: 0, state: lineage([{ ...rest, uid } as TradeRecord]) }]))[0]!.state, lineage([{ ...rest, uid } as TradeRecord]))).toBe(false);
  });
});

describe("the replay code's fingerprint", () => {
  it('covers the fold, the rows, the day records and the codec, followed through their imports', () => {
    const closure = [...moduleClosure([fileOf(new URL('../../../projections/src/trades/user-rows.ts', import.meta.url)), fileOf(new URL('./state-codec.ts', import.meta.url))]).keys()];
    for (const f of ['projections/src/trades/user-rows.ts', 'projections/src/trades/tables.ts', 'projections/src/daily-premium/compute.ts', 'projections/src/split-history/tables.ts', 'contracts/src/lineage-fold.ts', 'contracts/src/trade-record.ts', 'contracts/src/formulas.ts', 'contracts/src/journal-events.ts', 'contracts/src/business-date.ts', 'services/src/audit/state-codec.ts']) {
      expect(closure).toContain(f);
    }
    expect(closure.some((f) => f.includes('node_modules'))).toBe(false);
  });

  it('changes with any module it reaches, and only with those', async () => {
    const root = await mkdtemp(join(tmpdir(), 'oj-fingerprint-'));
    try {
      await writeFile(join(root, 'package.json'), JSON.stringify({ workspaces: ['a', 'b'] }));
      await mkdir(join(root, 'a', 'src'), { recursive: true });
      await mkdir(join(root, 'b', 'src'), { recursive: true });
      await writeFile(join(root, 'a', 'src', 'fold.ts'), "import { rule } from './rule.ts';\nimport type { X } from '@oj/b/shape';\nimport { z } from 'zod';\nexport const f = rule;\n");
      await writeFile(join(root, 'a', 'src', 'rule.ts'), 'export const rule = 1;\n');
      await writeFile(join(root, 'b', 'src', 'shape.ts'), 'export type X = number;\n');
      await writeFile(join(root, 'b', 'src', 'other.ts'), 'export const other = 1;\n');
      const roots = [join(root, 'a', 'src', 'fold.ts')];
      const first = codeFingerprint(roots);
      expect(codeFingerprint(roots)).toBe(first);
      await writeFile(join(root, 'b', 'src', 'other.ts'), 'export const other = 2;\n');
      expect(codeFingerprint(roots)).toBe(first);
      await writeFile(join(root, 'b', 'src', 'shape.ts'), 'export type X = string;\n');
      const second = codeFingerprint(roots);
      expect(second).not.toBe(first);
      await writeFile(join(root, 'a', 'src', 'rule.ts'), 'export const rule = 2; // a comment counts too\n');
      expect(codeFingerprint(roots)).not.toBe(second);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
