// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { tradeListItemFixture } from '@/test/trade-list-item.ts';
import { forgetSessionDrafts, keepOnSessionEnd, saveDraftsForSessionEnd } from '@/lib/session-drafts.ts';
import { KEPT_TRADE_ACTION } from '../utils/kept-trade-action-key.ts';
import { keptTradeAction } from './use-kept-trade-action.ts';

const trade = tradeListItemFixture('t1', { ticker: 'KEEP' });

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
