import { tradeStatus, tradeStatusNames, transactionNames } from '@oj/contracts/journal-events';
import type { TradeListItem } from '@oj/contracts/trade-list-item';

export const statusLabels: Record<number, string> = tradeStatusNames;

export const statusLabel = (status: number): string => statusLabels[status] ?? 'Unknown';

/** Open action: STO for a credit (sell to open), BTO for a debit. */
export const openActionLabel = (ot: number): 'STO' | 'BTO' => (ot === 2 ? 'BTO' : 'STO');

/** Close action: BTC for a debit close, STC for a credit close; neutral closes have none. */
export const closeActionLabel = (ct: number | null): string => (ct === 2 ? 'BTC' : ct === 1 ? 'STC' : '');

export const transactionLabel = (t: number | null): string => (t === null ? undefined : transactionNames[t]) ?? '—';

/**
 * A finished trade's status as the lists show it, with the close action for a plain close ("Closed (BTC)").
 * Not its disposition: that is the item's `dis` ("Early Exit", "Closed", ...), the classification the
 * dashboard and pulse count by (docs/formulas.md).
 */
export function closedStatusLabel(trade: Pick<TradeListItem, 'status' | 'ct'>): string {
  if (trade.status === tradeStatus.closed) {
    const action = closeActionLabel(trade.ct);
    return action ? `Closed (${action})` : 'Closed';
  }
  return statusLabel(trade.status);
}

/** One strike formatter for every screen (lists, pulse, upcoming expirations, share cards). */
export { formatStrikes, trimNumber } from '@/lib/format.ts';
