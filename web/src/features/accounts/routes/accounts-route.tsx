import { useState } from 'react';
import { MAX_TRADE_ACCOUNTS, type Account } from '@oj/contracts/accounts';
import { Alert } from '@/components/ui/alert.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { LoadingOverlay } from '@/components/ui/loading-overlay.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { errorMessage } from '@/lib/api-client.ts';
import { useAccounts } from '../api/get-accounts.ts';
import { useUpdateDefaultAccount } from '../api/update-default-account.ts';
import { AccountCard } from '../components/account-card.tsx';
import { AccountFormDialog } from '../components/account-form-dialog.tsx';
import { CoverImageDialog } from '../components/cover-image-dialog.tsx';
import '../accounts.css';

/** Trade Accounts: a card per account, a dashed Add card, edit / make default / cover image per card. */
export function AccountsRoute() {
  const session = useSession();
  const accounts = useAccounts();
  const makeDefault = useUpdateDefaultAccount();
  const toast = useToast();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Account | null>(null);
  const [confirmDefault, setConfirmDefault] = useState<Account | null>(null);
  const [defaultError, setDefaultError] = useState<string | null>(null);
  const [cover, setCover] = useState<Account | null>(null);

  const list = accounts.data ?? [];
  const expired = !session.subscriptionActive;
  const full = list.length >= MAX_TRADE_ACCOUNTS;
  const currentDefault = list.find((a) => a.default_account);

  const confirmMakeDefault = () => {
    if (!confirmDefault) return;
    setDefaultError(null);
    makeDefault.mutate(
      { old_default: currentDefault?.uid ?? confirmDefault.uid, new_default: confirmDefault.uid },
      {
        onSuccess: () => {
          setConfirmDefault(null);
          toast.success('Default Account Updated!');
        },
        onError: () => setDefaultError('Failed to update default account.'),
      },
    );
  };

  return (
    <>
      <PageHeader
        title="Trade Accounts"
        description={`Your brokerage accounts. Keep up to ${MAX_TRADE_ACCOUNTS}; the default one is preselected when you record a trade.`}
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Accounts' }]}
      />
      {expired && (
        <Alert tone="warning" title="Your subscription has expired, please renew">
          Your accounts are kept, but adding and editing them needs an active subscription.
        </Alert>
      )}
      {accounts.isError && <Alert tone="danger">{errorMessage(accounts.error, 'Failed to fetch account data.')}</Alert>}
      <LoadingOverlay show={accounts.isFetching && list.length === 0}>
        <div className="account-grid">
          {list.map((a) => (
            <AccountCard
              key={a.uid}
              account={a}
              disabled={expired}
              onEdit={() => setEditing(a)}
              onMakeDefault={() => {
                setDefaultError(null);
                setConfirmDefault(a);
              }}
              onEditCover={() => setCover(a)}
            />
          ))}
          <button
            type="button"
            className="account-add-card"
            onClick={() => setAdding(true)}
            disabled={expired || full}
            aria-describedby="add-account-note"
          >
            <span className="account-add-icon" aria-hidden="true">
              <Icon name="plus" size={28} />
            </span>
            <span className="account-add-title">Add Trade Account</span>
            <span id="add-account-note" className="account-add-note">
              {full ? `You can keep at most ${MAX_TRADE_ACCOUNTS} trade accounts.` : `${list.length} of ${MAX_TRADE_ACCOUNTS} used`}
            </span>
          </button>
        </div>
      </LoadingOverlay>
      <AccountFormDialog open={adding} onClose={() => setAdding(false)} />
      <AccountFormDialog open={editing !== null} account={editing ?? undefined} onClose={() => setEditing(null)} />
      <ConfirmDialog
        open={confirmDefault !== null}
        title={confirmDefault ? `Make ${confirmDefault.name} Default Account` : ''}
        message="New trades will preselect this account."
        confirmLabel="Make Default"
        busyLabel="Updating..."
        busy={makeDefault.isPending}
        error={defaultError}
        onConfirm={confirmMakeDefault}
        onCancel={() => setConfirmDefault(null)}
      />
      <CoverImageDialog account={cover} onClose={() => setCover(null)} />
    </>
  );
}
