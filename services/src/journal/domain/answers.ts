import type { JournalEvent } from '@oj/contracts/journal-events';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { toListItem } from '@oj/contracts/trade-record';
import type { JournalCommandType } from './decide.ts';
import type { Lineage } from './lineage.ts';

/**
 * A command's answer, built from the folded lineage after its events, in the list item shape the read
 * models store (same `toListItem`), so the console can update its lists before the projector runs.
 * Works from the command's own events, so a retried command whose events are already in the stream
 * gets the same answer.
 */
export type JournalAnswer =
  | TradeListItem
  | { closed_trade: TradeListItem }
  | { remaining_trade: TradeListItem | null; closed_trade: TradeListItem }
  | { closed_trade: TradeListItem; remaining_trade: TradeListItem | null; new_trade_after_roll: TradeListItem }
  | { closed_trade: TradeListItem; open_trade: TradeListItem }
  | { message: string; uid: string };

export function answerOf(command: JournalCommandType, tradeId: string, events: JournalEvent[], state: Lineage, today: string): JournalAnswer {
  if (state.status === 'empty') throw new Error('answer of an empty lineage');
  const item = (uid: string): TradeListItem => {
    const r = state.view.trades.get(uid);
    if (!r) throw new Error(`trade ${uid} missing from its lineage`);
    return toListItem(r, today);
  };
  const last = events[events.length - 1];
  switch (command) {
    case 'OpenTrade':
    case 'EditTrade':
      return item(tradeId);
    case 'AddClosedTrade':
      return { closed_trade: item(tradeId) };
    case 'CloseTrade': {
      const remainder = last?.type === 'TradeClosed' ? last.data.remainder : null;
      return { remaining_trade: remainder ? item(remainder.tradeId) : null, closed_trade: item(tradeId) };
    }
    case 'RollTrade': {
      if (last?.type !== 'TradeRolled') throw new Error('roll answer without TradeRolled');
      const d = last.data;
      return { closed_trade: item(tradeId), remaining_trade: d.remainder ? item(d.remainder.tradeId) : null, new_trade_after_roll: item(d.newTrade.tradeId) };
    }
    case 'SplitTrade': {
      if (last?.type !== 'TradeSplit') throw new Error('split answer without TradeSplit');
      return { closed_trade: item(last.data.closedLeg.tradeId), open_trade: item(last.data.openLeg.tradeId) };
    }
    case 'DeleteTrade':
      return { message: 'Trade successfully deleted', uid: tradeId };
    default: {
      const never: never = command;
      throw new Error(`Unknown command ${String(never)}`);
    }
  }
}
