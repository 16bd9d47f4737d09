import { strategyByUid } from '@oj/contracts/strategies';
import { tradeStatusNames } from '@oj/contracts/journal-events';

/** Trade status codes of the spec. */
export const statusNames: Record<number, string> = tradeStatusNames;
export const eventTypes = ['TradeOpened', 'TradeClosed', 'TradeRolled', 'TradeSplit', 'TradeEdited', 'TradeDeleted'] as const;
export const eventLabels: Record<string, string> = {
  TradeOpened: 'Opened',
  TradeClosed: 'Closed',
  TradeRolled: 'Rolled',
  TradeSplit: 'Split',
  TradeEdited: 'Edited',
  TradeDeleted: 'Deleted',
};
export const eventTones: Record<string, 'primary' | 'success' | 'warning' | 'danger' | 'info' | 'neutral'> = {
  TradeOpened: 'primary',
  TradeClosed: 'success',
  TradeRolled: 'info',
  TradeSplit: 'warning',
  TradeEdited: 'neutral',
  TradeDeleted: 'danger',
};
export const strategyName = (uid: string | null) => (uid ? (strategyByUid(uid)?.name ?? uid) : '—');
/** The last six characters of a uid, as the timeline's sentences name trades. */
export { tradeShortId as shortId } from '@oj/contracts/trades';
export const money = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
/** A field value of a diff, readable: objects as compact JSON. */
export function showValue(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string') return v === '' ? '""' : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(showValue).join(', ')}]`;
  // A close record and other small objects: key value pairs, easier to read than JSON.
  return Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${k} ${showValue(x)}`)
    .join(' · ');
}
/** UTC instant as `2026-03-02 15:04:05Z`. */
export const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
