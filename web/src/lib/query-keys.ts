/**
 * The prefix of every query whose answer is figures computed from the trader's trades outside the trade
 * lists: the dashboard's premium data, the income calendar's days, the events calendar's expirations and
 * the pulse. A trade command refreshes them all once the read models show it (the trades feature's
 * `applyTradeChanges`), so a screen that stays open while a trade is added, closed or edited from the
 * top bar shows the new figures without being left and seen again.
 */
export const journalFiguresKey = ['journal-figures'] as const;

/** How long an answer the shell asked for ahead of its page counts as that page's own (`freshForMount`). */
export const PREFETCH_FRESH_MS = 2_000;

/**
 * `refetchOnMount` for a page's query that the shell asks for before the page mounts (a route handle's
 * `prefetch`, app/shell/app-shell.tsx), where the query is otherwise stale at once: an answer fetched in
 * the last 2 s and not invalidated since is the one this mount asked for, not an old one to fetch again.
 */
export const freshForMount = (query: { state: { dataUpdatedAt: number; isInvalidated: boolean } }): boolean =>
  query.state.isInvalidated || Date.now() - query.state.dataUpdatedAt > PREFETCH_FRESH_MS;
