import type { TradeListSlots } from '../components/trade-actions.ts';
import { TradeListPage } from '../components/trade-list-page.tsx';

export function ClosedTradesRoute(slots: TradeListSlots) {
  return <TradeListPage {...slots} kind="closed" title="Closed Trades" description="Closed, expired, assigned, called-away and exercised trades, newest close first." />;
}
