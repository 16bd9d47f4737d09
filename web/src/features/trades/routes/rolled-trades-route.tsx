import type { TradeListSlots } from '../components/trade-actions.ts';
import { TradeListPage } from '../components/trade-list-page.tsx';

export function RolledTradesRoute(slots: TradeListSlots) {
  return <TradeListPage {...slots} kind="rolled" title="Rolled Trades" description="Trades you rolled to a new expiration, newest roll first." />;
}
