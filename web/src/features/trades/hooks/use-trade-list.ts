import { useMemo } from 'react';
import { todayInNewYork } from '@/lib/format.ts';
import { useExpiringTrades } from '../api/get-expiring-trades.ts';
import { useTradesByStatus } from '../api/get-trades-by-status.ts';
import { applyChanges, flattenPages, recentChanges } from '../api/list-upkeep.ts';
import type { TradeListFilters, TradeListKind } from '../api/trade-keys.ts';

/** One list page's data: the loaded pages as one de-duplicated list, with this tab's recent changes applied. */
export function useTradeList(kind: TradeListKind, filters: TradeListFilters, size: number) {
  // Both hooks are always called (hook order); only the one this page shows is enabled.
  const byStatus = useTradesByStatus(kind === 'expiring' ? 'open' : kind, filters, size, kind !== 'expiring');
  const expiring = useExpiringTrades(filters, size, kind === 'expiring');
  const query = kind === 'expiring' ? expiring : byStatus;
  const { data } = query;
  const view = useMemo(() => {
    if (!data) return { items: [], total: 0 };
    const patched = applyChanges(data, recentChanges(), kind, filters, todayInNewYork());
    return { items: flattenPages(patched), total: patched.pages[0]?.total ?? 0 };
  }, [data, kind, filters]);
  return { ...query, ...view };
}
