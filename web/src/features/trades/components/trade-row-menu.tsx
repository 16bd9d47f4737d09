import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { DropdownMenu, type MenuItem } from '../../../components/ui/dropdown-menu.tsx';
import { DotsIcon } from './icons.tsx';
import type { TradeAction } from './trade-actions.ts';

/** Row menu: open trades offer detail, edit, delete (and roll history); closed ones their histories and detail. */
export function TradeRowMenu({ trade, variant, onAction }: { trade: TradeListItem; variant: 'open' | 'closed'; onAction: (a: TradeAction) => void }) {
  const act = (type: Exclude<TradeAction['type'], 'by-date'>) => () => onAction({ type, trade });
  const items: MenuItem[] =
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
        ];
  return <DropdownMenu trigger={<DotsIcon />} label={`Actions for ${trade.ticker}`} items={items} triggerClassName="icon-button tc-menu" />;
}
