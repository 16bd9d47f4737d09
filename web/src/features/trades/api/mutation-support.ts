import { tradeListItem, type TradeListItem } from '@oj/contracts/trade-list-item';

/** One key per submitted form: a retried request (double click, network retry) is applied once. */
export const newIdempotencyKey = (): string => crypto.randomUUID();

/** A trade in a command's answer, read through the shared contract; absent or empty answers give null. */
export function tradeOrNull(value: unknown): TradeListItem | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object' && Object.keys(value).length === 0) return null;
  return tradeListItem.parse(value);
}
