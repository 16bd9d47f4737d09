import type { ReactNode } from 'react';
import type { TradeListItem } from '@oj/contracts/trade-list-item';

/** What a row button or menu item asks the page to open. */
export type TradeAction =
  | { type: 'detail' | 'edit' | 'delete' | 'close' | 'roll' | 'split' | 'roll-history' | 'split-history' | 'share'; trade: TradeListItem }
  | { type: 'by-date'; date: string };

/**
 * Draws a trade's share card. The card belongs to the share feature, which this feature does not
 * import: the app passes this in (src/app/trade-share.tsx), and without it the lists offer no Share.
 */
export type RenderTradeShare = (trade: TradeListItem, onClose: () => void) => ReactNode;

/** What the app composes into the trade list pages. */
export interface TradeListSlots {
  renderTradeShare?: RenderTradeShare;
}

export interface TradeTableMeta {
  onAction: (action: TradeAction) => void;
  accountName: (uid: string) => string;
  today: string;
  /** Whether a trade's card can be shared from its row (the app gave a RenderTradeShare). */
  canShare: boolean;
}
