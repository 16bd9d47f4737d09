import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import type { QueryClient } from '@tanstack/react-query';
import type { TradeListKind } from '../api/trade-keys.ts';
import type { TradeListSlots } from '../components/trade-actions.ts';

/**
 * The trade pages, mounted inside the private shell. Each page is its own chunk, so the shell's first
 * load carries none of the tables or dialogs; `requiresActiveSubscription` makes the shell show the
 * renewal screen instead of a list when the subscription has expired (part 1 §2 route guard). The app
 * passes in what the lists draw from other features (a trade's share card), since features do not
 * import each other.
 */
export function tradeRoutes(slots: TradeListSlots = {}): RouteObject[] {
  // The handle comes with the page's code, so the first screen's chunk carries none of the list's query
  // code: locked for a lapsed plan, and the shell asks for the list's first page as it opens with it
  // (api/prefetch-trade-list.ts).
  const list = (kind: TradeListKind, page: () => Promise<ComponentType<TradeListSlots>>) => async () => {
    const [Page, { prefetchTradeList }] = await Promise.all([page(), import('../api/prefetch-trade-list.ts')]);
    return {
      Component: () => <Page {...slots} />,
      handle: { requiresActiveSubscription: true, prefetch: (queryClient: QueryClient) => prefetchTradeList(queryClient, kind) },
    };
  };
  return [
    { path: 'trades/open', lazy: list('open', async () => (await import('./open-trades-route.tsx')).OpenTradesRoute) },
    { path: 'trades/expiring-soon', lazy: list('expiring', async () => (await import('./expiring-trades-route.tsx')).ExpiringTradesRoute) },
    { path: 'trades/closed', lazy: list('closed', async () => (await import('./closed-trades-route.tsx')).ClosedTradesRoute) },
    { path: 'trades/rolled', lazy: list('rolled', async () => (await import('./rolled-trades-route.tsx')).RolledTradesRoute) },
    { path: 'trades/add', lazy: async () => ({ Component: (await import('./add-trade-route.tsx')).AddTradeRoute }) },
  ];
}
