// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { forgetSessionDrafts, keepOnSessionEnd, saveDraftsForSessionEnd } from '@/lib/session-drafts.ts';
import { KEPT_TRADE_ACTION } from '../utils/kept-trade-action-key.ts';
import { keptTradeAction } from './use-kept-trade-action.ts';

const trade: TradeListItem = {
  uid: 't1',
  lid: 't1',
  ticker: 'KEEP',
  sp: [50],
  c: 5000,
  tod: '2026-12-01',
  tcd: null,
  ed: '2027-01-15',
  status: 1,
  pao: 200,
  pac: null,
  npc: null,
  nd: 0.2,
  cs: 1,
  notes: '',
  tags: [],
  ot: 1,
  ct: null,
  su: 'cash-secured-put',
  au: 'a1',
  auid: null,
  spo: 55,
  cb: null,
  lv: null,
  rf: null,
  pf: null,
  up: '2026-12-01T15:00:00Z',
  nfto: 0.65,
  nftc: null,
  ror: null,
  aroc: null,
  cg: null,
  do: 6,
  dis: null,
  rh: false,
  created_at: '2026-12-01T15:00:00Z',
};

/** What a one-trade form keeps as the session of `userId` runs out. */
function lapseWith(userId: string, kept: unknown) {
  const unregister = keepOnSessionEnd(KEPT_TRADE_ACTION, () => kept);
  saveDraftsForSessionEnd(userId);
  unregister();
}

afterEach(() => forgetSessionDrafts());

describe('keptTradeAction', () => {
  it('answers the form and the trade it was open on, for the user whose session ran out', () => {
    lapseWith('u1', { type: 'close', trade, state: { values: { premium: '40' } } });
    expect(keptTradeAction('u1')).toEqual({ type: 'close', trade });
  });

  it('answers nothing for another user (and drops it), or when nothing was kept', () => {
    expect(keptTradeAction('u1')).toBeUndefined();
    lapseWith('u1', { type: 'roll', trade, state: {} });
    expect(keptTradeAction('u2')).toBeUndefined();
    expect(keptTradeAction('u1')).toBeUndefined();
  });

  it('trusts nothing read back from storage: an unknown form, or a trade the contract does not accept, reopens nothing', () => {
    lapseWith('u1', { type: 'delete', trade, state: {} });
    expect(keptTradeAction('u1')).toBeUndefined();
    lapseWith('u1', { type: 'edit', trade: { ...trade, pao: '200' }, state: {} });
    expect(keptTradeAction('u1')).toBeUndefined();
    lapseWith('u1', { type: 'split', trade: { uid: 't1' }, state: {} });
    expect(keptTradeAction('u1')).toBeUndefined();
  });
});
