import { PulseRoute } from '@/features/pulse/routes/pulse-route.tsx';
import { renderTradeShare } from '../trade-share.tsx';

/** Pulse composed by the app: a trade in its tables opens the share feature's trade card. */
export function PulsePage() {
  return <PulseRoute renderTradeShare={renderTradeShare} />;
}

/** The route's handle: the pulse feature's (the subscription lock, and the prefetch of a pulse link). */
export { pulseHandle } from '@/features/pulse/routes/pulse-route.tsx';
