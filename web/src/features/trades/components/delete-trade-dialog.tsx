import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { formatDate } from '@/lib/format.ts';
import { useDeleteTrade } from '../api/delete-trade.ts';
import { formatStrikes } from '../utils/trade-labels.ts';
import { strategyName } from './trade-cells.tsx';
import './trade-dialogs.css';

/** Delete: "Confirm Delete" with Yes and Cancel; the result is a toast (part 1 §2, §8). */
export function DeleteTradeDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const mutation = useDeleteTrade();
  const toast = useToast();
  return (
    <ConfirmDialog
      open
      title="Confirm Delete"
      tone="danger"
      message={
        <>
          Delete the {trade.ticker} {strategyName(trade.su)} {formatStrikes(trade.sp)} trade opened {formatDate(trade.tod)}? It leaves every list.
        </>
      }
      confirmLabel="Yes"
      cancelLabel="Cancel"
      busy={mutation.isPending}
      busyLabel="Deleting..."
      onCancel={onClose}
      onConfirm={() =>
        mutation.mutate(trade.uid, {
          onSuccess: () => {
            toast.success('Deleted', 'Trade successfully deleted');
            onClose();
          },
          onError: () => toast.error('Error', 'Failed to delete trade'),
        })
      }
    />
  );
}
