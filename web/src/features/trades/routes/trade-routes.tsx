import type { RouteObject } from 'react-router';

/**
 * The trade pages, mounted inside the private shell. Each page is its own chunk, so the shell's first
 * load carries none of the tables or dialogs; `requiresActiveSubscription` makes the shell show the
 * renewal screen instead of a list when the subscription has expired (part 1 §2 route guard).
 */
const locked = { requiresActiveSubscription: true };

export const tradeRoutes: RouteObject[] = [
  { path: 'trades/open', handle: locked, lazy: async () => ({ Component: (await import('./open-trades-route.tsx')).OpenTradesRoute }) },
  { path: 'trades/expiring-soon', handle: locked, lazy: async () => ({ Component: (await import('./expiring-trades-route.tsx')).ExpiringTradesRoute }) },
  { path: 'trades/closed', handle: locked, lazy: async () => ({ Component: (await import('./closed-trades-route.tsx')).ClosedTradesRoute }) },
  { path: 'trades/rolled', handle: locked, lazy: async () => ({ Component: (await import('./rolled-trades-route.tsx')).RolledTradesRoute }) },
  { path: 'trades/add', lazy: async () => ({ Component: (await import('./add-trade-route.tsx')).AddTradeRoute }) },
];
