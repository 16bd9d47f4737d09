import { useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { daysBetween } from '@oj/contracts/business-date';
import { strategyByUid } from '@oj/contracts/strategies';
import { formatDate } from '@/lib/format.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { useDismiss } from '@/lib/use-dismiss.ts';
import { BELL_SIZE, useExpiringSummary } from '../api/get-expiring-trades.ts';
import { expiryDisplay } from '../utils/expiry.ts';
import { BellIcon } from './icons.tsx';
import './bell.css';
import { TickerLogo } from '@/components/ticker-logo.tsx';

/**
 * The top bar's bell: at most five expired or nearly expiring trades, soonest first, each a link to the
 * expiring list at its ticker, and a link to the whole list (part 1 §2 "Shell"). A disclosure: Escape or a
 * click outside closes it.
 */
export function ExpiringBell() {
  const [open, setOpen] = useState(false);
  // With an expired subscription the trade lists are locked, so the bell does not ask for them.
  const active = useSession().subscriptionActive;
  const query = useExpiringSummary({ enabled: active });
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const today = useBusinessToday();
  const items = (query.data?.items ?? []).slice(0, BELL_SIZE);
  const total = query.data?.total ?? 0;

  useDismiss(
    open,
    (target) => rootRef.current?.contains(target) ?? true,
    (by) => {
      setOpen(false);
      if (by === 'escape') buttonRef.current?.focus();
    },
  );

  return (
    <div className="bell" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className="icon-button bell-button"
        aria-label={total > 0 ? `Expiring trades: ${total}` : 'Expiring trades'}
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        <BellIcon />
        {total > 0 && (
          <span className="bell-count" aria-hidden="true">
            {total > 99 ? '99+' : total}
          </span>
        )}
      </button>
      {open && (
        <div className="bell-panel" id={panelId} role="region" aria-label="Expiring trades">
          <div className="bell-header">Expired | Near Expiration</div>
          {active && query.isPending ? (
            <p className="bell-empty">Loading…</p>
          ) : items.length === 0 ? (
            <p className="bell-empty">No expiring trades</p>
          ) : (
            <ul className="bell-list">
              {items.map((t) => {
                const { text, tone } = expiryDisplay(daysBetween(today, t.ed));
                // Each entry opens the expiring list at its ticker, where the trade's Close and Roll are.
                return (
                  <li key={t.uid}>
                    <Link className="bell-item" to={`/trades/expiring-soon?${new URLSearchParams({ ticker: t.ticker })}`} onClick={() => setOpen(false)}>
                      <div className="ticker-with-logo">
                        <TickerLogo ticker={t.ticker} size={22} />
                        <span>
                          <strong>{t.ticker}</strong> <span className="muted">{strategyByUid(t.su)?.name ?? ''}</span>
                        </span>
                      </div>
                      <div className="bell-item-meta">
                        <span>{formatDate(t.ed)}</span>
                        <span className={`tc-expiry tc-${tone}`}>{text}</span>
                      </div>
                    </Link>
                  </li>
                );
              })}
            </ul>
          )}
          <Link className="bell-view-all" to="/trades/expiring-soon" onClick={() => setOpen(false)}>
            View all
          </Link>
        </div>
      )}
    </div>
  );
}
