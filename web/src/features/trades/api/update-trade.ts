import { useMutation, useQueryClient } from '@tanstack/react-query';
import { tradeListItem, type TradeListItem } from '@oj/contracts/trade-list-item';
import type { UpdateTradeExpected, UpdateTradeRequest } from '@oj/contracts/trades';
import { api, ApiError } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { sendOnce } from './mutation-support.ts';
import { tradeKeys } from './trade-keys.ts';

/**
 * PATCH /trades/update/{uid} with only the changed fields and what the form showed for them (`expected`):
 * answers the updated trade, or 409 when the trade was changed elsewhere since.
 */
export async function updateTrade(uid: string, changes: UpdateTradeRequest, expected: UpdateTradeExpected | undefined, idempotencyKey: string): Promise<TradeListItem> {
  const body: UpdateTradeRequest = expected && Object.keys(expected).length ? { ...changes, expected } : changes;
  return tradeListItem.parse(await api.patch<unknown>(`/trades/update/${encodeURIComponent(uid)}`, body, { idempotencyKey }));
}

/** Fields whose change leaves the dashboard's aggregates as they are (part 1 §4 "Edit dialog"). */
const LOCAL_ONLY: ReadonlySet<string> = new Set(['account_uid', 'notes', 'tags']);

export const useUpdateTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ uid, changes, expected }: { uid: string; changes: UpdateTradeRequest; expected?: UpdateTradeExpected }) =>
      sendOnce('update-trade', { uid, changes, expected }, (key) => updateTrade(uid, changes, expected, key)),
    onSuccess: (trade, { changes }) => {
      const aggregates = Object.keys(changes).some((k) => !LOCAL_ONLY.has(k));
      applyTradeChanges(queryClient, [{ type: 'upsert', trade }], aggregates ? [['metrics']] : []);
    },
    // Changed elsewhere (another tab or window): the lists this tab shows are stale, so they are read again
    // and the trade's next edit starts from what it holds now.
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) void queryClient.invalidateQueries({ queryKey: tradeKeys.lists() });
    },
  });
};
