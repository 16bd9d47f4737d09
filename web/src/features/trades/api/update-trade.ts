import { useMutation, useQueryClient } from '@tanstack/react-query';
import { tradeListItem, type TradeListItem } from '@oj/contracts/trade-list-item';
import type { TradeExpectations, UpdateTradeRequest } from '@oj/contracts/trades';
import { api } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { refreshListsAfterRefusal, sendOnce } from './mutation-support.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';

/**
 * PATCH /trades/update/{uid} with only the changed fields and what the form showed for them (`expected`):
 * answers the updated trade, or 409 when the trade was changed elsewhere since.
 */
export async function updateTrade(uid: string, changes: UpdateTradeRequest, expected: TradeExpectations | undefined, idempotencyKey: string): Promise<TradeListItem> {
  const body: UpdateTradeRequest = expected && Object.keys(expected).length ? { ...changes, expected } : changes;
  return tradeListItem.parse(await api.patch<unknown>(`/trades/update/${encodeURIComponent(uid)}`, body, { idempotencyKey }));
}

/** Fields whose change leaves the dashboard's aggregates as they are (part 1 §4 "Edit dialog"). */
const LOCAL_ONLY: ReadonlySet<string> = new Set(['account_uid', 'notes', 'tags']);

export const useUpdateTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ uid, changes, expected }: { uid: string; changes: UpdateTradeRequest; expected?: TradeExpectations }) =>
      sendOnce('update-trade', { uid, changes, expected }, (key) => updateTrade(uid, changes, expected, key)),
    onSuccess: (trade, { changes }) => {
      const aggregates = Object.keys(changes).some((k) => !LOCAL_ONLY.has(k));
      applyTradeChanges(queryClient, [{ type: 'upsert', trade }], aggregates ? [journalFiguresKey] : []);
    },
    // Refused for what the trade is now (changed elsewhere, closed): the lists are read again, and the
    // trade's next edit starts from what it holds now.
    onError: (error) => refreshListsAfterRefusal(queryClient, error),
  });
};
