import { lazy, Suspense } from 'react';
import type { TradeListItem } from '@oj/contracts/trade-list-item';

// The card's code (the share feature and the strategy catalogue) loads when a trade is shared, not with
// the page that lists it, since this module is in the router's first load; the DOM-to-image library
// loads later still, on Download (share-modal.tsx).
const TradeShareCard = lazy(async () => ({ default: (await import('./trade-share-card.tsx')).TradeShareCard }));

/** What the trade lists, the trade detail and Pulse draw when a trade's Share is chosen. */
export function renderTradeShare(trade: TradeListItem, onClose: () => void) {
  return (
    <Suspense fallback={null}>
      <TradeShareCard trade={trade} onClose={onClose} />
    </Suspense>
  );
}
