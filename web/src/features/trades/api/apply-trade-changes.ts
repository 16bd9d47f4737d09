import type { QueryClient } from '@tanstack/react-query';
import { todayInNewYork } from '../../../lib/format.ts';
import { applyChanges, rememberChanges, type TradeChange, type TradePage, type TradePages } from './list-upkeep.ts';
import { tradeKeys, type TradeListFilters, type TradeListKind } from './trade-keys.ts';

/** The spec refetches 500 ms after a delete; the same delay serves every action (recent changes cover any lag). */
const RECONCILE_AFTER_MS = 500;

/**
 * Patches every cached trade list with a command's answer, then refreshes them from the read models
 * (by the same keys the lists are read with). The patch keeps the screen right during the projector's
 * lag; the refresh brings in what only the server knows (derived figures, other tabs' changes).
 */
export function applyTradeChanges(queryClient: QueryClient, changes: readonly TradeChange[], extraKeys: readonly (readonly unknown[])[] = []): void {
  const today = todayInNewYork();
  rememberChanges(changes);
  for (const [key, data] of queryClient.getQueriesData<TradePages | TradePage>({ queryKey: tradeKeys.lists() })) {
    if (!data) continue;
    const kind = key[2];
    if (kind === 'expiring-summary' && 'items' in data) {
      const wrapped: TradePages = { pages: [data], pageParams: [1] };
      const next = applyChanges(wrapped, changes, 'expiring', {}, today).pages[0];
      if (next) queryClient.setQueryData(key, next);
      continue;
    }
    if ('items' in data || typeof kind !== 'string') continue;
    const { size: _size, ...filters } = (key[3] ?? {}) as TradeListFilters & { size?: number };
    queryClient.setQueryData(key, applyChanges(data, changes, kind as TradeListKind, filters, today));
  }
  window.setTimeout(() => {
    void queryClient.invalidateQueries({ queryKey: tradeKeys.lists() });
    void queryClient.invalidateQueries({ queryKey: ['trades', 'roll-history'] });
    void queryClient.invalidateQueries({ queryKey: ['trades', 'split-history'] });
    void queryClient.invalidateQueries({ queryKey: ['trades', 'by-date'] });
    for (const k of extraKeys) void queryClient.invalidateQueries({ queryKey: k });
  }, RECONCILE_AFTER_MS);
}
