import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { closeTradeResponse, type CloseTradeRequest } from '@oj/contracts/trades';
import { api } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import type { TradeChange } from './list-upkeep.ts';
import { refreshListsAfterRefusal, sendOnce } from './mutation-support.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';

/** close, expire-worthless, or the in-the-money outcome's path (assigned, called-away, exercised). */
export type CloseRoute = 'close' | 'expire-worthless' | 'assigned' | 'called-away' | 'exercised';

export interface CloseTradeInput {
  uid: string;
  route: CloseRoute;
  body: CloseTradeRequest;
}

export interface CloseTradeResult {
  closed: TradeListItem;
  remaining: TradeListItem | null;
}

/** POST /trades/{route}/{uid}: answers remaining_trade (after a partial close) and closed_trade. */
export async function closeTrade(input: CloseTradeInput, idempotencyKey: string): Promise<CloseTradeResult> {
  const body = closeTradeResponse.parse(await api.post<unknown>(`/trades/${input.route}/${encodeURIComponent(input.uid)}`, input.body, { idempotencyKey }));
  return { closed: body.closed_trade, remaining: body.remaining_trade };
}

export const useCloseTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CloseTradeInput) => sendOnce('close-trade', input, (key) => closeTrade(input, key)),
    onSuccess: ({ closed, remaining }, input) => {
      const changes: TradeChange[] = [];
      if (closed.uid !== input.uid && remaining?.uid !== input.uid) changes.push({ type: 'remove', uid: input.uid });
      if (remaining) changes.push({ type: 'upsert', trade: remaining });
      changes.push({ type: 'upsert', trade: closed });
      applyTradeChanges(queryClient, changes, [journalFiguresKey]);
    },
    onError: (error) => refreshListsAfterRefusal(queryClient, error),
  });
};
