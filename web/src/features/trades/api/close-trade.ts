import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { api } from '../../../lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import type { TradeChange } from './list-upkeep.ts';
import { newIdempotencyKey, tradeOrNull } from './mutation-support.ts';

export type CloseRoute = 'close' | 'expire-worthless' | 'assigned' | 'called-away' | 'exercised';

export interface CloseTradeInput {
  uid: string;
  route: CloseRoute;
  body: {
    contract_size: number;
    trade_close_date: string;
    premium_at_close: number;
    close_transaction: 1 | 2 | 3;
    net_fee_to_close: number;
  };
}

export interface CloseTradeResult {
  closed: TradeListItem;
  remaining: TradeListItem | null;
}

/** POST /trades/close/{uid}, /trades/expire-worthless/{uid} or /trades/{outcome}/{uid}: answers remaining_trade and closed_trade. */
export async function closeTrade(input: CloseTradeInput, idempotencyKey: string): Promise<CloseTradeResult> {
  const body = await api.post<{ closed_trade?: unknown; remaining_trade?: unknown }>(`/trades/${input.route}/${encodeURIComponent(input.uid)}`, input.body, { idempotencyKey });
  const closed = tradeOrNull(body?.closed_trade);
  if (!closed) throw new Error('Failed to close trade. Please try again.');
  return { closed, remaining: tradeOrNull(body?.remaining_trade) };
}

export const useCloseTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CloseTradeInput) => closeTrade(input, newIdempotencyKey()),
    onSuccess: ({ closed, remaining }, input) => {
      const changes: TradeChange[] = [];
      if (closed.uid !== input.uid && remaining?.uid !== input.uid) changes.push({ type: 'remove', uid: input.uid });
      if (remaining) changes.push({ type: 'upsert', trade: remaining });
      changes.push({ type: 'upsert', trade: closed });
      applyTradeChanges(queryClient, changes, [['metrics']]);
    },
  });
};
