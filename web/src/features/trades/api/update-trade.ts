import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { api } from '../../../lib/api-client.ts';
import { applyTradeChanges } from './apply-trade-changes.ts';
import { newIdempotencyKey, tradeOrNull } from './mutation-support.ts';

/** Only the changed fields are sent (part 1 §7). */
export interface UpdateTradeChanges {
  ticker?: string;
  expiration_date?: string;
  strike_prices?: number[];
  stock_price_at_open?: number;
  cost_basis?: number;
  trade_open_date?: string;
  premium_at_open?: number;
  contract_size?: number;
  notes?: string;
  account_uid?: string;
  net_fee_to_open?: number;
  net_delta?: number;
}

/** PATCH /trades/update/{uid}: answers the updated trade. */
export async function updateTrade(uid: string, changes: UpdateTradeChanges, idempotencyKey: string): Promise<TradeListItem> {
  const body = await api.patch<unknown>(`/trades/update/${encodeURIComponent(uid)}`, changes, { idempotencyKey });
  const record = body && typeof body === 'object' && 'uid' in body ? body : (body as { trade?: unknown } | null)?.trade;
  const trade = tradeOrNull(record);
  if (!trade) throw new Error('Error updating trade');
  return trade;
}

/** Fields whose change moves the dashboard's aggregates; an account or notes edit only touches the lists. */
const LOCAL_ONLY: ReadonlySet<keyof UpdateTradeChanges> = new Set(['account_uid', 'notes']);

export const useUpdateTrade = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ uid, changes }: { uid: string; changes: UpdateTradeChanges }) => updateTrade(uid, changes, newIdempotencyKey()),
    onSuccess: (trade, { changes }) => {
      const aggregates = (Object.keys(changes) as (keyof UpdateTradeChanges)[]).some((k) => !LOCAL_ONLY.has(k));
      applyTradeChanges(queryClient, [{ type: 'upsert', trade }], aggregates ? [['metrics']] : []);
    },
  });
};
