import { tradeStatus } from '@oj/contracts/journal-events';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import type { TradeChange, TradePage } from './list-upkeep.ts';
import type { TradeListFilters } from './trade-keys.ts';
import type { TradeStatusList } from './get-trades-by-status.ts';

/**
 * Whether the read models show a command's changes yet. The lists are refreshed after a command, but a
 * refresh during the projector's lag answers the old total, and for a trade on a page not loaded
 * nothing on screen can tell (issue 14: 11 open trades read "out of 12" one way, "out of 11" the
 * other). So before the refresh each changed trade is looked up where it now lives: its list, its
 * ticker and its sort date make the answer a handful of rows.
 */
export interface Probe {
  status: TradeStatusList;
  filters: TradeListFilters;
  /** True when the answer shows the change. */
  shows: (page: TradePage) => boolean;
}

const listOf = (t: TradeListItem): TradeStatusList => (t.status === tradeStatus.open ? 'open' : t.status === tradeStatus.rolled ? 'rolled' : 'closed');
/** The date a list sorts and filters by (open: open date; closed and rolled: close date). */
const sortDate = (t: TradeListItem): string => (t.status === tradeStatus.open ? t.tod : (t.tcd ?? t.tod));
const where = (t: TradeListItem): Pick<Probe, 'status' | 'filters'> => ({ status: listOf(t), filters: { ticker: t.ticker, sd: sortDate(t), ed: sortDate(t) } });

export function probeFor(change: TradeChange): Probe | null {
  if (change.type === 'upsert') {
    const t = change.trade;
    return { ...where(t), shows: (p) => p.items.some((i) => i.uid === t.uid && i.up >= t.up && i.status === t.status) };
  }
  // A removed trade is looked for where it was; without its earlier version there is nowhere to look.
  const before = change.before;
  if (!before) return null;
  return { ...where(before), shows: (p) => !p.items.some((i) => i.uid === change.uid) };
}
