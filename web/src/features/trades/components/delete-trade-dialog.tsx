import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { formatDate } from '@/lib/format.ts';
import { useDeleteTrade } from '../api/delete-trade.ts';
import { formatStrikes } from '../utils/trade-labels.ts';
import { strategyName } from './trade-cells.tsx';
import './trade-dialogs.css';

/**
 * What a delete leaves behind, said before Yes: a trade that came from a roll, a split or a partial
 * close deletes alone, and the closed part it came from stays final (QA: deleting a roll's new trade
 * left its old trade "Rolled" into nothing, without a word).
 */
export function deleteLeaves(trade: Pick<TradeListItem, 'rf' | 'auid' | 'pf'>): string | null {
  if (trade.rf) return 'It is the new trade of a roll: the trade it was rolled from stays closed as Rolled, and its roll history will end there.';
  if (trade.auid) return 'It is the open leg of a split: the closed leg stays in the Closed list, and the split cannot be undone.';
  if (trade.pf) return 'It is what stayed open after a partial close: the contracts already closed stay in the Closed list.';
  return null;
}

/** Delete: "Confirm Delete" with Yes and Cancel; the result is a toast (part 1 §2, §8). */
export function DeleteTradeDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const mutation = useDeleteTrade();
  const toast = useToast();
  const leaves = deleteLeaves(trade);
  return (
    <ConfirmDialog
      open
      title="Confirm Delete"
      tone="danger"
      message={
        <>
          Delete the {trade.ticker} {strategyName(trade.su)} {formatStrikes(trade.sp)} trade opened {formatDate(trade.tod)}? It leaves every list.
          {leaves && ` ${leaves}`}
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
