import { lazy, Suspense } from 'react';
import type { RenderTradeShare, TradeAction } from './trade-actions.ts';

// Each dialog is its own chunk: a list page loads only the table until a dialog is asked for.
const CloseTradeDialog = lazy(async () => ({ default: (await import('./close-trade-dialog.tsx')).CloseTradeDialog }));
const RollTradeDialog = lazy(async () => ({ default: (await import('./roll-trade-dialog.tsx')).RollTradeDialog }));
const SplitTradeDialog = lazy(async () => ({ default: (await import('./split-trade-dialog.tsx')).SplitTradeDialog }));
const EditTradeDialog = lazy(async () => ({ default: (await import('./edit-trade-dialog.tsx')).EditTradeDialog }));
const TradeDetailDialog = lazy(async () => ({ default: (await import('./trade-detail-dialog.tsx')).TradeDetailDialog }));
const RollHistoryDialog = lazy(async () => ({ default: (await import('./roll-history-dialog.tsx')).RollHistoryDialog }));
const SplitHistoryDialog = lazy(async () => ({ default: (await import('./split-history-dialog.tsx')).SplitHistoryDialog }));
const TradesByDateDialog = lazy(async () => ({ default: (await import('./trades-by-date-dialog.tsx')).TradesByDateDialog }));
const DeleteTradeDialog = lazy(async () => ({ default: (await import('./delete-trade-dialog.tsx')).DeleteTradeDialog }));

/** Renders the dialog a row asked for; closing it clears the action. */
export function TradeDialogHost({ action, onClose, renderTradeShare }: { action: TradeAction | null; onClose: () => void; renderTradeShare?: RenderTradeShare }) {
  if (!action) return null;
  return <Suspense fallback={null}>{dialogFor(action, onClose, renderTradeShare)}</Suspense>;
}

function dialogFor(action: TradeAction, onClose: () => void, renderTradeShare: RenderTradeShare | undefined) {
  if (action.type === 'by-date') return <TradesByDateDialog date={action.date} onClose={onClose} />;
  const { trade } = action;
  switch (action.type) {
    case 'close':
      return <CloseTradeDialog key={trade.uid} trade={trade} onClose={onClose} />;
    case 'roll':
      return <RollTradeDialog key={trade.uid} trade={trade} onClose={onClose} />;
    case 'split':
      return <SplitTradeDialog key={trade.uid} trade={trade} onClose={onClose} />;
    case 'edit':
      return <EditTradeDialog key={trade.uid} trade={trade} onClose={onClose} />;
    case 'detail':
      return <TradeDetailDialog key={trade.uid} trade={trade} onClose={onClose} renderShare={renderTradeShare} />;
    case 'share':
      return renderTradeShare?.(trade, onClose) ?? null;
    case 'roll-history':
      return <RollHistoryDialog key={trade.uid} trade={trade} onClose={onClose} />;
    case 'split-history':
      return <SplitHistoryDialog key={trade.uid} trade={trade} onClose={onClose} />;
    case 'delete':
      return <DeleteTradeDialog key={trade.uid} trade={trade} onClose={onClose} />;
  }
}
