import { TradeListPage } from '../components/trade-list-page.tsx';

export function ExpiringTradesRoute() {
  return <TradeListPage kind="expiring" title="Expiring Trades" description="Open trades that have expired or expire within 7 days, soonest first." />;
}
