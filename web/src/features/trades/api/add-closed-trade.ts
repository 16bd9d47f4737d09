import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { api } from '../../../lib/api-client.ts';
import type { OpenTradeData } from './add-trade.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { newIdempotencyKey, tradeOrNull } from './mutation-support.ts';

export interface ClosingFields {
  trade_close_date: string;
  premium_at_close: number;
  net_fee_to_close: number;
  close_transaction: 1 | 2 | 3;
  status: number;
}

export interface AddClosedTradeInput {
  trade_data: OpenTradeData & ClosingFields;
  tag_data: { name: string }[];
}

/** POST /trades/add-closed-trade: answers closed_trade. */
export async function addClosedTrade(input: AddClosedTradeInput, idempotencyKey: string): Promise<TradeListItem> {
  const body = await api.post<{ closed_trade?: unknown }>('/trades/add-closed-trade', input, { idempotencyKey });
  const trade = tradeOrNull(body?.closed_trade);
  if (!trade) throw new Error('Error uploading trade. Please try again.');
  return trade;
}

export const useAddClosedTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: AddClosedTradeInput) => addClosedTrade(input, newIdempotencyKey()),
    onSuccess: (trade) => applyTradeChanges(queryClient, [{ type: 'upsert', trade }], [['metrics']]),
  });
};
