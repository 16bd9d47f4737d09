import { TradeListPage } from '../components/trade-list-page.tsx';

export function RolledTradesRoute() {
  return <TradeListPage kind="rolled" title="Rolled Trades" description="Trades you rolled to a new expiration, newest roll first." />;
}
