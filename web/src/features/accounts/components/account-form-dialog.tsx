import type { Account } from '@oj/contracts/accounts';

export interface AccountFormDialogProps {
  open: boolean;
  onClose: () => void;
  /** Edit this account; absent to add a new one. */
  account?: Account;
}

export function AccountFormDialog(_props: AccountFormDialogProps) {
  return null;
}
