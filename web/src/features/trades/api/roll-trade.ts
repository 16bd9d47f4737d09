import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { api } from '../../../lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import type { TradeChange } from './list-upkeep.ts';
import { newIdempotencyKey, tradeOrNull } from './mutation-support.ts';

export interface RollTradeInput {
  uid: string;
  body: {
    trade_roll_data: {
      old_trade: {
        contract_size: number;
        trade_close_date: string;
        premium_at_close: number;
        close_transaction: 1 | 2;
        net_fee_to_close: number;
      };
      new_trade: {
        trade_open_date: string;
        expiration_date: string;
        contract_size: number;
        strike_prices: number[];
        stock_price_at_open: number | null;
        cost_basis: number | null;
        net_delta: number;
        open_transaction: 1 | 2;
        premium_at_open: number;
        net_fee_to_open: number;
        notes: string;
      };
    };
    tag_data: { name: string }[];
  };
}

export interface RollTradeResult {
  closed: TradeListItem;
  remaining: TradeListItem | null;
  next: TradeListItem;
}

/** POST /trades/roll/{uid}: answers closed_trade, remaining_trade (may be empty) and new_trade_after_roll. */
export async function rollTrade(input: RollTradeInput, idempotencyKey: string): Promise<RollTradeResult> {
  const body = await api.post<{ closed_trade?: unknown; remaining_trade?: unknown; new_trade_after_roll?: unknown }>(
    `/trades/roll/${encodeURIComponent(input.uid)}`,
    input.body,
    { idempotencyKey },
  );
  const closed = tradeOrNull(body?.closed_trade);
  const next = tradeOrNull(body?.new_trade_after_roll);
  if (!closed || !next) throw new Error('Failed to roll trade. Please try again.');
  return { closed, next, remaining: tradeOrNull(body?.remaining_trade) };
}

export const useRollTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: RollTradeInput) => rollTrade(input, newIdempotencyKey()),
    onSuccess: ({ closed, remaining, next }, input) => {
      const changes: TradeChange[] = [];
      if (closed.uid !== input.uid && remaining?.uid !== input.uid) changes.push({ type: 'remove', uid: input.uid });
      changes.push({ type: 'upsert', trade: closed });
      if (remaining) changes.push({ type: 'upsert', trade: remaining });
      changes.push({ type: 'upsert', trade: next });
      applyTradeChanges(queryClient, changes, [['metrics']]);
    },
  });
};
