import type { QueryClient } from '@tanstack/react-query';
import { todayInNewYork } from '@/lib/format.ts';
import { applyChanges, flattenPages, rememberChanges, type TradeChange, type TradePage, type TradePages } from './list-upkeep.ts';
import { tradeKeys, type TradeListFilters, type TradeListKind } from './trade-keys.ts';
import { getTradesByStatus } from './get-trades-by-status.ts';
import { FRESHNESS_RETRIES, freshnessDelay } from './history-freshness.ts';
import { probeFor, type Probe } from './read-model-probe.ts';
import { announceJournalWrite } from './other-tabs.ts';

/** The spec refetches 500 ms after a delete; the same delay serves every action (recent changes cover any lag). */
const RECONCILE_AFTER_MS = 500;
/** One ticker's trades of one date in one list: a page this size holds them all. */
const PROBE_SIZE = 50;

/**
 * Patches every cached trade list with a command's answer, then refreshes them from the read models
 * (by the same keys the lists are read with). The patch keeps the screen right during the projector's
 * lag; the refresh brings in what only the server knows (derived figures, other tabs' changes).
 */
export function applyTradeChanges(queryClient: QueryClient, commandChanges: readonly TradeChange[], extraKeys: readonly (readonly unknown[])[] = []): void {
  const today = todayInNewYork();
  // A list request in flight may answer from after the command: dropped, so every cached page is
  // known to predate it (the refresh below asks again).
  void queryClient.cancelQueries({ queryKey: tradeKeys.lists() });
  const cached = queryClient.getQueriesData<TradePages | TradePage>({ queryKey: tradeKeys.lists() });
  const changes = withEarlierVersions(commandChanges, cached.map(([, data]) => data));
  rememberChanges(changes);
  for (const [key, data] of cached) {
    if (!data) continue;
    const kind = key[2];
    if (kind === 'expiring-summary' && 'items' in data) {
      const wrapped: TradePages = { pages: [data], pageParams: [1] };
      const next = applyChanges(wrapped, changes, 'expiring', {}, today, 'pre-command').pages[0];
      if (next) queryClient.setQueryData(key, next);
      continue;
    }
    if ('items' in data || typeof kind !== 'string') continue;
    const { size: _size, ...filters } = (key[3] ?? {}) as TradeListFilters & { size?: number };
    queryClient.setQueryData(key, applyChanges(data, changes, kind as TradeListKind, filters, today, 'pre-command'));
  }
  window.setTimeout(() => void reconcile(queryClient, changes, extraKeys), RECONCILE_AFTER_MS);
}

/**
 * Refreshes the lists once the read models show the command (each changed trade looked up where it now
 * lives), so the refreshed totals are the ones a reload gives; after the freshness retries (about 12 s)
 * the lists are refreshed anyway. The user's other tabs are told then, and refresh too.
 */
async function reconcile(queryClient: QueryClient, changes: readonly TradeChange[], extraKeys: readonly (readonly unknown[])[]): Promise<void> {
  let pending = changes.map(probeFor).filter((p): p is Probe => p !== null);
  for (let attempt = 0; pending.length > 0 && attempt < FRESHNESS_RETRIES; attempt++) {
    const answers = await Promise.all(
      pending.map((p) =>
        getTradesByStatus(p.status, 1, PROBE_SIZE, p.filters).then(
          (page) => p.shows(page),
          // A probe that fails must not hold the refresh back.
          () => true,
        ),
      ),
    );
    pending = pending.filter((_, i) => !answers[i]);
    if (pending.length > 0) await new Promise((r) => window.setTimeout(r, freshnessDelay(attempt)));
  }
  void queryClient.invalidateQueries({ queryKey: tradeKeys.lists() });
  void queryClient.invalidateQueries({ queryKey: ['trades', 'roll-history'] });
  void queryClient.invalidateQueries({ queryKey: ['trades', 'split-history'] });
  void queryClient.invalidateQueries({ queryKey: ['trades', 'by-date'] });
  for (const k of extraKeys) void queryClient.invalidateQueries({ queryKey: k });
  announceJournalWrite();
}

/**
 * Each changed trade's version before the command, from whichever cached list had it loaded: a list that
 * holds the trade on a page not fetched yet learns from it that the trade leaves (or stays), so its total
 * moves as a reload's would. A command answer's own `before` (null: a trade it created) is kept.
 */
export function withEarlierVersions(changes: readonly TradeChange[], cached: readonly (TradePages | TradePage | undefined)[]): TradeChange[] {
  const known = new Map<string, TradeChange['before']>();
  for (const data of cached) {
    if (!data) continue;
    const items = 'items' in data ? data.items : flattenPages(data);
    for (const t of items) if (!known.has(t.uid)) known.set(t.uid, t);
  }
  return changes.map((c) => {
    if (c.before !== undefined) return c;
    const uid = c.type === 'remove' ? c.uid : c.trade.uid;
    return known.has(uid) ? { ...c, before: known.get(uid) } : c;
  });
}
