import { lazy, Suspense } from 'react';
import { Modal } from '@/components/ui/modal.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';

export interface NewTradeDialogProps {
  open: boolean;
  onClose: () => void;
  /** 'YYYY-MM-DD' to preset the open date (the income calendar's day click). */
  initialDate?: string;
}

// The shell renders these dialogs on every private page; the form is a separate chunk fetched on first open.
const AddTradeWizard = lazy(async () => ({ default: (await import('./add-trade-wizard.tsx')).AddTradeWizard }));

function NewTradeDialog({ open, onClose, initialDate, mode }: NewTradeDialogProps & { mode: 'open' | 'closed' }) {
  return (
    <Modal open={open} onClose={onClose} title={mode === 'open' ? 'Add Open Trade' : 'Add Closed Trade'} size="lg" closeOnBackdrop={false}>
      <Suspense
        fallback={
          <div className="dialog-loading">
            <Spinner />
          </div>
        }
      >
        <AddTradeWizard mode={mode} initialDate={initialDate} />
      </Suspense>
    </Modal>
  );
}

export function AddOpenTradeDialog(props: NewTradeDialogProps) {
  return <NewTradeDialog {...props} mode="open" />;
}

export function AddClosedTradeDialog(props: NewTradeDialogProps) {
  return <NewTradeDialog {...props} mode="closed" />;
}
