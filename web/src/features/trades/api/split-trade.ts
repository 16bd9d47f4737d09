import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { splitTradeResponse, type SplitTradeRequest } from '@oj/contracts/trades';
import { api } from '@/lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { refreshListsAfterRefusal, sendOnce } from './mutation-support.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';

export interface SplitTradeInput {
  uid: string;
  body: SplitTradeRequest;
}

/** POST /trades/split-trade/{uid}: answers closed_trade and open_trade. */
export async function splitTrade(input: SplitTradeInput, idempotencyKey: string): Promise<{ closed: TradeListItem; open: TradeListItem }> {
  const body = splitTradeResponse.parse(await api.post<unknown>(`/trades/split-trade/${encodeURIComponent(input.uid)}`, input.body, { idempotencyKey }));
  return { closed: body.closed_trade, open: body.open_trade };
}

export const useSplitTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SplitTradeInput) => sendOnce('split-trade', input, (key) => splitTrade(input, key)),
    onSuccess: ({ closed, open }, input) =>
      applyTradeChanges(
        queryClient,
        [
          { type: 'remove', uid: input.uid },
          { type: 'upsert', trade: closed },
          { type: 'upsert', trade: open },
        ],
        [journalFiguresKey],
      ),
    onError: (error) => refreshListsAfterRefusal(queryClient, error),
  });
};
