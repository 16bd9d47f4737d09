import { useMutation, useQueryClient } from '@tanstack/react-query';
import { tradeListItem, type TradeListItem } from '@oj/contracts/trade-list-item';
import type { UpdateTradeRequest } from '@oj/contracts/trades';
import { api } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { sendOnce } from './mutation-support.ts';

/** PATCH /trades/update/{uid} with only the changed fields: answers the updated trade. */
export async function updateTrade(uid: string, changes: UpdateTradeRequest, idempotencyKey: string): Promise<TradeListItem> {
  return tradeListItem.parse(await api.patch<unknown>(`/trades/update/${encodeURIComponent(uid)}`, changes, { idempotencyKey }));
}

/** Fields whose change leaves the dashboard's aggregates as they are (part 1 §4 "Edit dialog"). */
const LOCAL_ONLY: ReadonlySet<string> = new Set(['account_uid', 'notes', 'tags']);

export const useUpdateTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ uid, changes }: { uid: string; changes: UpdateTradeRequest }) => sendOnce('update-trade', { uid, changes }, (key) => updateTrade(uid, changes, key)),
    onSuccess: (trade, { changes }) => {
      const aggregates = Object.keys(changes).some((k) => !LOCAL_ONLY.has(k));
      applyTradeChanges(queryClient, [{ type: 'upsert', trade }], aggregates ? [['metrics']] : []);
    },
  });
};
