import type { TradeListItem } from '@oj/contracts/trade-list-item';

/** What a row button or menu item asks the page to open. */
export type TradeAction =
  | { type: 'detail' | 'edit' | 'delete' | 'close' | 'roll' | 'split' | 'roll-history' | 'split-history'; trade: TradeListItem }
  | { type: 'by-date'; date: string };

export interface TradeTableMeta {
  onAction: (action: TradeAction) => void;
  accountName: (uid: string) => string;
  today: string;
}
