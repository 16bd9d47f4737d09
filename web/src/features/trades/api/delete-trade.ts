import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { refreshListsAfterRefusal, sendOnce } from './mutation-support.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';

/** DELETE /trades/{uid}: open trades only. */
export async function deleteTrade(uid: string, idempotencyKey: string): Promise<void> {
  await api.delete<unknown>(`/trades/${encodeURIComponent(uid)}`, { idempotencyKey });
}

export const useDeleteTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (uid: string) => sendOnce('delete-trade', uid, (key) => deleteTrade(uid, key)),
    onSuccess: (_void, uid) => applyTradeChanges(queryClient, [{ type: 'remove', uid }], [journalFiguresKey]),
    onError: (error) => refreshListsAfterRefusal(queryClient, error),
  });
};
