import { Modal } from '@/components/ui/modal.tsx';

const sections: Array<[string, string]> = [
  ['Free trial', 'Every new account starts with 30 days of Premium, no card needed. Add a card during the trial to continue afterwards: nothing is charged until the trial ends.'],
  ['Active', 'Your plan renews every month at 4.99 USD on the date shown. Premium features stay on while it is active.'],
  ['Cancelled / pending cancellation', 'Cancel Subscription (card menu) stops the renewal: you keep Premium to the end of the billing period, then the plan ends. Until then, Uncancel restores it. No refunds for unused time.'],
  ['Expired', 'Your trades, accounts and figures are kept. The trade lists, calendar and Pulse are locked until you Reactivate, which starts a new paid month at once.'],
  ['Payment update', 'Update Payment (card menu) replaces the card your plan is charged to. We e-mail you a month before your card expires.'],
  ['Grace period', 'If a renewal payment fails you have 2 days to fix it: Renew with a working card and access is restored at once. After that the plan expires until you reactivate.'],
];

/** The Subscription Guide (part 2 §2). */
export function GuideModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal open={open} onClose={onClose} title="Subscription Guide" size="lg">
      <dl className="guide-list">
        {sections.map(([title, text]) => (
          <div key={title}>
            <dt>{title}</dt>
            <dd>{text}</dd>
          </div>
        ))}
      </dl>
    </Modal>
  );
}
