import { tradeListResponse } from '@oj/contracts/trade-views';
import type { TradePage } from './list-upkeep.ts';

/** Lists are read through the shared contract, so a drift between server and console shows at once. */
export function parseTradePage(body: unknown): TradePage {
  return tradeListResponse.parse(body);
}
