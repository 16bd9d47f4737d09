import { TradeListPage } from '../components/trade-list-page.tsx';

export function ClosedTradesRoute() {
  return <TradeListPage kind="closed" title="Closed Trades" description="Closed, expired, assigned, called-away and exercised trades, newest close first." />;
}
