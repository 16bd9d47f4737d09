import { useSession } from '@/features/auth/hooks/use-session.ts';
import { useExpiringSummary } from '../api/get-expiring-trades.ts';
import './bell.css';

/** The red count on the sidebar's Expiring entry, shown once loaded and non-zero (part 1 §2). */
export function ExpiringCountBadge() {
  const { data } = useExpiringSummary({ enabled: useSession().subscriptionActive });
  const total = data?.total ?? 0;
  if (total <= 0) return null;
  return (
    <span className="expiring-count-badge" aria-label={`${total} expiring`}>
      {total > 99 ? '99+' : total}
    </span>
  );
}
