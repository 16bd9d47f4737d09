import type { TradeListSlots } from '../components/trade-actions.ts';
import { TradeListPage } from '../components/trade-list-page.tsx';

export function ExpiringTradesRoute(slots: TradeListSlots) {
  return <TradeListPage {...slots} kind="expiring" title="Expiring Trades" description="Open trades that have expired or expire within 7 days, soonest first." />;
}
