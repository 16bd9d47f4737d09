import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { addClosedTradeResponse, type AddClosedTradeRequest } from '@oj/contracts/trades';
import { api } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { sendOnce } from './mutation-support.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';

/** POST /trades/add-closed-trade: answers closed_trade. */
export async function addClosedTrade(input: AddClosedTradeRequest, idempotencyKey: string): Promise<TradeListItem> {
  return addClosedTradeResponse.parse(await api.post<unknown>('/trades/add-closed-trade', input, { idempotencyKey })).closed_trade;
}

export const useAddClosedTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: AddClosedTradeRequest) => sendOnce('add-closed-trade', input, (key) => addClosedTrade(input, key)),
    onSuccess: (trade) => applyTradeChanges(queryClient, [{ type: 'upsert', trade }], [journalFiguresKey]),
  });
};
