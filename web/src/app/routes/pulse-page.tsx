import { lazy, Suspense } from 'react';
import { strategyByUid } from '@oj/contracts/strategies';
import { PulseRoute } from '../../features/pulse/routes/pulse-route.tsx';

// The share card's code loads when a trade is shared, not with the page.
const TradeShareModal = lazy(async () => ({ default: (await import('../../features/share/components/trade-share.tsx')).TradeShareModal }));

/** Pulse composed by the app: a trade in its tables opens the share feature's trade card. */
export function PulsePage() {
  return (
    <PulseRoute
      renderTradeShare={(trade, onClose) => (
        <Suspense fallback={null}>
          <TradeShareModal open onClose={onClose} trade={trade} strategyName={strategyByUid(trade.su)?.name ?? trade.su} />
        </Suspense>
      )}
    />
  );
}
