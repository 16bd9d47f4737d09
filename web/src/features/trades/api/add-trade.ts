import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { api } from '../../../lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { newIdempotencyKey, tradeOrNull } from './mutation-support.ts';

export interface OpenTradeData {
  ticker: string;
  account_uid: string;
  strategy_uid: string;
  strike_prices: number[];
  trade_open_date: string;
  expiration_date: string;
  contract_size: number;
  premium_at_open: number;
  net_fee_to_open: number;
  open_transaction: 1 | 2;
  net_delta: number;
  stock_price_at_open: number | null;
  cost_basis: number | null;
  notes: string;
}

export interface AddTradeInput {
  trade_data: OpenTradeData;
  tag_data: { name: string }[];
}

/** POST /trades/add-trade: answers the new trade. */
export async function addTrade(input: AddTradeInput, idempotencyKey: string): Promise<TradeListItem> {
  const body = await api.post<unknown>('/trades/add-trade', input, { idempotencyKey });
  const record = body && typeof body === 'object' && 'uid' in body ? body : (body as { trade?: unknown } | null)?.trade;
  const trade = tradeOrNull(record);
  if (!trade) throw new Error('Error uploading trade. Please try again.');
  return trade;
}

export const useAddTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: AddTradeInput) => addTrade(input, newIdempotencyKey()),
    onSuccess: (trade) => applyTradeChanges(queryClient, [{ type: 'upsert', trade }], [['metrics']]),
  });
};
