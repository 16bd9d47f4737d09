import { useState } from 'react';
import { MAX_TRADE_ACCOUNTS } from '@oj/contracts/accounts';
import { useAccounts } from '@/features/accounts/api/get-accounts.ts';
import { AccountFormDialog } from '@/features/accounts/components/account-form-dialog.tsx';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { AddClosedTradeDialog, AddOpenTradeDialog } from '@/features/trades/components/new-trade-dialogs.tsx';
import { DropdownMenu } from '@/components/ui/dropdown-menu.tsx';
import { Icon } from '@/components/ui/icons.tsx';

type Open = 'none' | 'open-trade' | 'closed-trade' | 'account';

/** "New Record": Open Trade and Closed Trade need a trade account and an active subscription. */
export function NewRecordMenu() {
  const [open, setOpen] = useState<Open>('none');
  const session = useSession();
  const accounts = useAccounts();
  const count = accounts.data?.length ?? 0;
  const canTrade = count > 0 && session.subscriptionActive;
  const tradeHint = !session.subscriptionActive ? 'Your subscription has expired, please renew' : count === 0 ? 'Add a trade account first' : undefined;
  const accountHint = !session.subscriptionActive
    ? 'Your subscription has expired, please renew'
    : count >= MAX_TRADE_ACCOUNTS
      ? `You can keep at most ${MAX_TRADE_ACCOUNTS} trade accounts.`
      : undefined;
  const close = () => setOpen('none');
  return (
    <>
      <DropdownMenu
        label="New Record"
        triggerClassName="btn btn-primary btn-md new-record-trigger"
        trigger={
          <>
            <Icon name="plus" />
            <span className="new-record-label">New Record</span>
          </>
        }
        items={[
          { label: 'Open Trade', onSelect: () => setOpen('open-trade'), disabled: !canTrade, title: tradeHint, icon: <Icon name="open" /> },
          { label: 'Closed Trade', onSelect: () => setOpen('closed-trade'), disabled: !canTrade, title: tradeHint, icon: <Icon name="closed" /> },
          { label: 'Trade Account', onSelect: () => setOpen('account'), disabled: accountHint !== undefined, title: accountHint, icon: <Icon name="accounts" /> },
        ]}
      />
      <AddOpenTradeDialog open={open === 'open-trade'} onClose={close} />
      <AddClosedTradeDialog open={open === 'closed-trade'} onClose={close} />
      <AccountFormDialog open={open === 'account'} onClose={close} />
    </>
  );
}
