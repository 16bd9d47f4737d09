import { Link } from 'react-router';
import { Icon } from './ui/icons.tsx';

/** Replaces premium pages (trade lists, income calendar, pulse) when the subscription has expired. */
export function SubscriptionExpired() {
  return (
    <div className="card subscription-expired">
      <div className="subscription-expired-icon" aria-hidden="true">
        <Icon name="lock" size={28} />
      </div>
      <h2>Your subscription has expired, please renew</h2>
      <p className="muted">Your trades and accounts are kept. Renew to get the premium pages back.</p>
      <Link to="/subscription" className="btn btn-primary btn-md">
        Renew Now
      </Link>
    </div>
  );
}
