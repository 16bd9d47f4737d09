import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import type { TradeListSlots } from '../components/trade-actions.ts';

/**
 * The trade pages, mounted inside the private shell. Each page is its own chunk, so the shell's first
 * load carries none of the tables or dialogs; `requiresActiveSubscription` makes the shell show the
 * renewal screen instead of a list when the subscription has expired (part 1 §2 route guard). The app
 * passes in what the lists draw from other features (a trade's share card), since features do not
 * import each other.
 */
const locked = { requiresActiveSubscription: true };

export function tradeRoutes(slots: TradeListSlots = {}): RouteObject[] {
  const list = (Page: ComponentType<TradeListSlots>) => ({ Component: () => <Page {...slots} /> });
  return [
    { path: 'trades/open', handle: locked, lazy: async () => list((await import('./open-trades-route.tsx')).OpenTradesRoute) },
    { path: 'trades/expiring-soon', handle: locked, lazy: async () => list((await import('./expiring-trades-route.tsx')).ExpiringTradesRoute) },
    { path: 'trades/closed', handle: locked, lazy: async () => list((await import('./closed-trades-route.tsx')).ClosedTradesRoute) },
    { path: 'trades/rolled', handle: locked, lazy: async () => list((await import('./rolled-trades-route.tsx')).RolledTradesRoute) },
    { path: 'trades/add', lazy: async () => ({ Component: (await import('./add-trade-route.tsx')).AddTradeRoute }) },
  ];
}
