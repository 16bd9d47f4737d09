import { useMutation, useQueryClient } from '@tanstack/react-query';
import { tradeListItem, type TradeListItem } from '@oj/contracts/trade-list-item';
import type { AddTradeRequest } from '@oj/contracts/trades';
import { api } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { sendOnce } from './mutation-support.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';

/** POST /trades/add-trade: answers the new trade. */
export async function addTrade(input: AddTradeRequest, idempotencyKey: string): Promise<TradeListItem> {
  return tradeListItem.parse(await api.post<unknown>('/trades/add-trade', input, { idempotencyKey }));
}

export const useAddTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: AddTradeRequest) => sendOnce('add-trade', input, (key) => addTrade(input, key)),
    onSuccess: (trade) => applyTradeChanges(queryClient, [{ type: 'upsert', trade }], [journalFiguresKey]),
  });
};
