/** How long an answer the shell asked for ahead of its page counts as that page's own (`freshForMount`). */
export const PREFETCH_FRESH_MS = 2_000;

/**
 * `refetchOnMount` for a page's query that the shell asks for before the page mounts (a route handle's
 * `prefetch`, app/shell/app-shell.tsx), where the query is otherwise stale at once: an answer fetched in
 * the last 2 s and not invalidated since is the one this mount asked for, not an old one to fetch again.
 */
export const freshForMount = (query: { state: { dataUpdatedAt: number; isInvalidated: boolean } }): boolean =>
  query.state.isInvalidated || Date.now() - query.state.dataUpdatedAt > PREFETCH_FRESH_MS;
