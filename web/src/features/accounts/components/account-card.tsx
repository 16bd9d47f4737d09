import { accountTypeLabel, brokerageOf, type Account } from '@oj/contracts/accounts';
import { Badge } from '@/components/ui/badge.tsx';
import { DropdownMenu, type MenuItem } from '@/components/ui/dropdown-menu.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { AccountCover } from './account-cover.tsx';
import { BrokerageLogo } from './brokerage-logo.tsx';

export interface AccountCardProps {
  account: Account;
  /** Menus are disabled when the subscription has expired. */
  disabled: boolean;
  onEdit: () => void;
  onMakeDefault: () => void;
  onEditCover: () => void;
}

const money = (n: number) => n.toFixed(2);

export function AccountCard({ account, disabled, onEdit, onMakeDefault, onEditCover }: AccountCardProps) {
  const broker = brokerageOf(account.broker);
  const items: MenuItem[] = [{ label: 'Edit', onSelect: onEdit, icon: <Icon name="edit" /> }];
  if (!account.default_account) items.push({ label: 'Make Default', onSelect: onMakeDefault, icon: <Icon name="star" /> });
  items.push({ label: 'Edit Cover Image', onSelect: onEditCover, icon: <Icon name="image" /> });
  return (
    <article className={`account-card${account.default_account ? ' is-default' : ''}`} aria-label={account.name}>
      <div className="account-card-cover">
        <AccountCover name={account.name} url={account.bg_image} />
        {account.default_account && (
          <Badge tone="primary" className="account-default-badge">
            Default
          </Badge>
        )}
        <div className="account-card-menu">
          <DropdownMenu
            label={`Actions for ${account.name}`}
            triggerClassName="icon-button account-menu-trigger"
            trigger={<Icon name="more" size={20} />}
            items={items}
            disabled={disabled}
          />
        </div>
      </div>
      <div className="account-card-body">
        <div className="account-card-logo">
          <BrokerageLogo broker={account.broker} size={44} />
        </div>
        <h3 className="account-card-name">{account.name}</h3>
        <div className="account-card-broker">
          {broker?.login_url ? (
            <a href={broker.login_url} target="_blank" rel="noopener noreferrer">
              {broker.name}
              <Icon name="external" size={13} />
              <span className="visually-hidden"> (opens the broker's site)</span>
            </a>
          ) : (
            <span>{broker?.name ?? account.broker}</span>
          )}
          <span className="account-card-type">{accountTypeLabel(account.ac_type) ?? 'Account'}</span>
        </div>
        <div className="account-card-fees">
          Commission - {money(account.broker_commission)} | Fee - {money(account.broker_fee)}
        </div>
      </div>
    </article>
  );
}
