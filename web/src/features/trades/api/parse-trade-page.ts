import { paginated } from '@oj/contracts/common';
import { tradeListItem } from '@oj/contracts/trade-list-item';
import type { TradePage } from './list-upkeep.ts';

const tradePage = paginated(tradeListItem);

/** Lists are read through the shared contract, so a drift between server and console shows at once. */
export function parseTradePage(body: unknown): TradePage {
  return tradePage.parse(body);
}
