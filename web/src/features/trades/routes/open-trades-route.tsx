import { TradeListPage } from '../components/trade-list-page.tsx';

export function OpenTradesRoute() {
  return <TradeListPage kind="open" title="Open Trades" description="Positions you hold now, newest first. Close, roll or break them from here." />;
}
