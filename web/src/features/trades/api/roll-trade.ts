import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { rollTradeResponse, type RollTradeRequest } from '@oj/contracts/trades';
import { api } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import type { TradeChange } from './list-upkeep.ts';
import { refreshListsAfterRefusal, sendOnce } from './mutation-support.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';

export interface RollTradeInput {
  uid: string;
  body: RollTradeRequest;
}

export interface RollTradeResult {
  closed: TradeListItem;
  remaining: TradeListItem | null;
  next: TradeListItem;
}

/** POST /trades/roll/{uid}: answers closed_trade, remaining_trade (null for a full roll) and new_trade_after_roll. */
export async function rollTrade(input: RollTradeInput, idempotencyKey: string): Promise<RollTradeResult> {
  const body = rollTradeResponse.parse(await api.post<unknown>(`/trades/roll/${encodeURIComponent(input.uid)}`, input.body, { idempotencyKey }));
  return { closed: body.closed_trade, remaining: body.remaining_trade, next: body.new_trade_after_roll };
}

export const useRollTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: RollTradeInput) => sendOnce('roll-trade', input, (key) => rollTrade(input, key)),
    onSuccess: ({ closed, remaining, next }, input) => {
      const changes: TradeChange[] = [];
      if (closed.uid !== input.uid && remaining?.uid !== input.uid) changes.push({ type: 'remove', uid: input.uid });
      changes.push({ type: 'upsert', trade: closed });
      if (remaining) changes.push({ type: 'upsert', trade: remaining });
      changes.push({ type: 'upsert', trade: next });
      applyTradeChanges(queryClient, changes, [journalFiguresKey]);
    },
    onError: (error) => refreshListsAfterRefusal(queryClient, error),
  });
};
