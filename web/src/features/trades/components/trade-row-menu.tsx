import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { DropdownMenu, type MenuItem } from '@/components/ui/dropdown-menu.tsx';
import { DotsIcon } from './icons.tsx';
import type { TradeAction, TradeTableMeta } from './trade-actions.ts';

/**
 * Row menu (part 1 §2): open trades offer detail, edit, delete, Roll History when the lineage has a
 * roll, and Split History only when the trade is derived from a split (it has a split ancestor); closed
 * ones their histories and detail. Both offer Share when the app composed the share card in: an open
 * trade's card shows what it was opened for, a closed one's what it captured (a deleted trade is in no
 * list, so it has no card).
 */
export function rowMenuItems(trade: TradeListItem, variant: 'open' | 'closed', onAction: (a: TradeAction) => void, canShare = false): MenuItem[] {
  const act = (type: Exclude<TradeAction['type'], 'by-date'>) => () => onAction({ type, trade });
  const share: MenuItem[] = canShare ? [{ label: 'Share', onSelect: act('share') }] : [];
  return (
    variant === 'open'
      ? [
          { label: 'View Detail', onSelect: act('detail') },
          ...share,
          { label: 'Edit', onSelect: act('edit') },
          { label: 'Delete', onSelect: act('delete'), tone: 'danger' },
          ...(trade.rh ? [{ label: 'Roll History', onSelect: act('roll-history') }] : []),
          ...(trade.auid ? [{ label: 'Split History', onSelect: act('split-history') }] : []),
        ]
      : [
          ...(trade.rh ? [{ label: 'Roll History', onSelect: act('roll-history') }] : []),
          ...(trade.auid ? [{ label: 'Split History', onSelect: act('split-history') }] : []),
          { label: 'View Detail', onSelect: act('detail') },
          ...share,
        ]);
}

export function TradeRowMenu({ trade, variant, meta }: { trade: TradeListItem; variant: 'open' | 'closed'; meta: TradeTableMeta }) {
  const items = rowMenuItems(trade, variant, meta.onAction, meta.canShare);
  return <DropdownMenu trigger={<DotsIcon />} label={`Actions for ${trade.ticker}`} items={items} triggerClassName="icon-button tc-menu" />;
}
