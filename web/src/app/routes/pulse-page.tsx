import { PulseRoute } from '@/features/pulse/routes/pulse-route.tsx';
import { renderTradeShare } from '../trade-share.tsx';

/** Pulse composed by the app: a trade in its tables opens the share feature's trade card. */
export function PulsePage() {
  return <PulseRoute renderTradeShare={renderTradeShare} />;
}
