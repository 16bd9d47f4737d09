import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { api } from '../../../lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { newIdempotencyKey, tradeOrNull } from './mutation-support.ts';

export interface SplitLegData {
  leg_index: number;
  strategy_uid: string;
  strike_prices: number[];
  premium_at_open: number;
  net_fee_to_open: number;
  open_transaction: 1 | 2;
}

export interface SplitTradeInput {
  uid: string;
  body: {
    trade_data: {
      closing_trade: SplitLegData & {
        status: number;
        trade_close_date: string;
        premium_at_close: number;
        close_transaction: 1 | 2 | 3;
        net_fee_to_close: number;
      };
      opening_trade: SplitLegData;
    };
    tag_data: { name: string }[];
  };
}

/** POST /trades/split-trade/{uid}: answers closed_trade and open_trade. */
export async function splitTrade(input: SplitTradeInput, idempotencyKey: string): Promise<{ closed: TradeListItem; open: TradeListItem }> {
  const body = await api.post<{ closed_trade?: unknown; open_trade?: unknown }>(`/trades/split-trade/${encodeURIComponent(input.uid)}`, input.body, { idempotencyKey });
  const closed = tradeOrNull(body?.closed_trade);
  const open = tradeOrNull(body?.open_trade);
  if (!closed || !open) throw new Error('Failed to split trade. Please try again.');
  return { closed, open };
}

export const useSplitTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SplitTradeInput) => splitTrade(input, newIdempotencyKey()),
    onSuccess: ({ closed, open }, input) =>
      applyTradeChanges(
        queryClient,
        [
          { type: 'remove', uid: input.uid },
          { type: 'upsert', trade: closed },
          { type: 'upsert', trade: open },
        ],
        [['metrics']],
      ),
  });
};
