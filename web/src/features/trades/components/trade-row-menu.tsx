import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { DropdownMenu, type MenuItem } from '../../../components/ui/dropdown-menu.tsx';
import { DotsIcon } from './icons.tsx';
import type { TradeAction } from './trade-actions.ts';

/**
 * Row menu (part 1 §2): open trades offer detail, edit, delete, Roll History when the lineage has a
 * roll, and Split History only when the trade is derived from a split (it has a split ancestor); closed
 * ones their histories and detail.
 */
export function rowMenuItems(trade: TradeListItem, variant: 'open' | 'closed', onAction: (a: TradeAction) => void): MenuItem[] {
  const act = (type: Exclude<TradeAction['type'], 'by-date'>) => () => onAction({ type, trade });
  return (
    variant === 'open'
      ? [
          { label: 'View Detail', onSelect: act('detail') },
          { label: 'Edit', onSelect: act('edit') },
          { label: 'Delete', onSelect: act('delete'), tone: 'danger' },
          ...(trade.rh ? [{ label: 'Roll History', onSelect: act('roll-history') }] : []),
          ...(trade.auid ? [{ label: 'Split History', onSelect: act('split-history') }] : []),
        ]
      : [
          ...(trade.rh ? [{ label: 'Roll History', onSelect: act('roll-history') }] : []),
          ...(trade.auid ? [{ label: 'Split History', onSelect: act('split-history') }] : []),
          { label: 'View Detail', onSelect: act('detail') },
        ]);
}

export function TradeRowMenu({ trade, variant, onAction }: { trade: TradeListItem; variant: 'open' | 'closed'; onAction: (a: TradeAction) => void }) {
  const items = rowMenuItems(trade, variant, onAction);
  return <DropdownMenu trigger={<DotsIcon />} label={`Actions for ${trade.ticker}`} items={items} triggerClassName="icon-button tc-menu" />;
}
