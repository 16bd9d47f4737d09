import type { TradeListSlots } from '../components/trade-actions.ts';
import { TradeListPage } from '../components/trade-list-page.tsx';

export function OpenTradesRoute(slots: TradeListSlots) {
  return <TradeListPage {...slots} kind="open" title="Open Trades" description="Positions you hold now, newest first. Close, roll or break them from here." />;
}
