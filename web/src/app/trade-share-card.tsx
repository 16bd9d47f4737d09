import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { strategyByUid } from '@oj/contracts/strategies';
import { TradeShareModal } from '@/features/share/components/trade-share.tsx';

/** A trade's share card as the app composes it: the share feature's card, named from the strategy catalogue. */
export function TradeShareCard({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  return <TradeShareModal open onClose={onClose} trade={trade} strategyName={strategyByUid(trade.su)?.name ?? trade.su} />;
}
