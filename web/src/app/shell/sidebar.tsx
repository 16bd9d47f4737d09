import { useEffect, useRef, type KeyboardEvent } from 'react';
import { Link, NavLink } from 'react-router';
import { ExpiringCountBadge } from '@/features/trades/components/expiring-count-badge.tsx';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { Avatar } from '@/components/ui/avatar.tsx';
import { Icon, type IconName } from '@/components/ui/icons.tsx';
import { Logo } from '@/components/logo.tsx';

interface Entry {
  to: string;
  label: string;
  icon: IconName;
  badge?: React.ReactNode;
}

const main: Entry[] = [{ to: '/dashboard', label: 'Dashboard', icon: 'dashboard' }];
const trades: Entry[] = [
  { to: '/trades/expiring-soon', label: 'Expiring', icon: 'clock', badge: <ExpiringCountBadge /> },
  { to: '/trades/open', label: 'Open', icon: 'open' },
  { to: '/trades/closed', label: 'Closed', icon: 'closed' },
  { to: '/trades/rolled', label: 'Rolled', icon: 'rolled' },
];
const more: Entry[] = [
  { to: '/pulse', label: 'Pulse', icon: 'pulse' },
  { to: '/calendar/income', label: 'Calendar', icon: 'calendar' },
  { to: '/accounts', label: 'Accounts', icon: 'accounts' },
  { to: '/profile', label: 'Profile', icon: 'profile' },
  { to: '/getting-started', label: 'Tutorial', icon: 'tutorial' },
  { to: '/faq', label: 'FAQ', icon: 'faq' },
];
// Users is the Admin-only lookup (part 2 §6); contact messages are read by Admin and Support.
const admin: (Entry & { roles: string[] })[] = [
  { to: '/admin/users/user', label: 'Users', icon: 'users', roles: ['Admin'] },
  { to: '/admin/messages', label: 'Messages', icon: 'mail', roles: ['Admin', 'Support'] },
  { to: '/operations', label: 'Operations', icon: 'layers', roles: ['Admin', 'Operator'] },
  { to: '/support/users', label: 'Audit replay', icon: 'shield', roles: ['Admin', 'Support'] },
];

/** The widths where the sidebar is a drawer (app.css's `max-width: 991px`). */
export const MOBILE_NAV_QUERY = '(max-width: 991px)';
/** The sidebar's id, which the hamburger names in aria-controls. */
export const SIDEBAR_ID = 'main-navigation';

const FOCUSABLE = 'a[href], button:not([disabled]), [tabindex]:not([tabindex="-1"])';
/** The drawer's controls that can take focus now (the collapse button is not shown in the drawer). */
const focusables = (root: HTMLElement) => Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.getClientRects().length > 0);

export interface SidebarProps {
  contracted: boolean;
  onToggleContracted: () => void;
  /** Small screens: the sidebar is a drawer. */
  mobileOpen: boolean;
  onNavigate: () => void;
}

function Item({ entry, contracted, onNavigate }: { entry: Entry; contracted: boolean; onNavigate: () => void }) {
  return (
    <li>
      <NavLink to={entry.to} className={({ isActive }) => `nav-item${isActive ? ' active' : ''}`} title={contracted ? entry.label : undefined} onClick={onNavigate}>
        <Icon name={entry.icon} />
        <span className="nav-label">{entry.label}</span>
        {entry.badge && <span className="nav-badge">{entry.badge}</span>}
      </NavLink>
    </li>
  );
}

export function Sidebar({ contracted, onToggleContracted, mobileOpen, onNavigate }: SidebarProps) {
  const session = useSession();
  const first = session.user?.name.split(' ')[0] ?? '';
  const ref = useRef<HTMLElement>(null);
  // Opened as a drawer: focus goes to its first link (the page behind is inert, app-shell.tsx).
  useEffect(() => {
    if (mobileOpen && ref.current) focusables(ref.current)[0]?.focus();
  }, [mobileOpen]);
  // Tab and Shift+Tab go round the open drawer's links and buttons.
  const trapTab = (e: KeyboardEvent<HTMLElement>) => {
    if (!mobileOpen || e.key !== 'Tab' || !ref.current) return;
    const items = focusables(ref.current);
    const [head, tail] = [items[0], items[items.length - 1]];
    if (!head || !tail) return;
    const at = document.activeElement;
    if (e.shiftKey && (at === head || !ref.current.contains(at))) {
      e.preventDefault();
      tail.focus();
    } else if (!e.shiftKey && (at === tail || !ref.current.contains(at))) {
      e.preventDefault();
      head.focus();
    }
  };
  return (
    <aside
      ref={ref}
      id={SIDEBAR_ID}
      className={`sidebar${contracted ? ' contracted' : ''}${mobileOpen ? ' mobile-open' : ''}`}
      aria-label="Main navigation"
      // Open as a drawer it is modal by making the page behind inert (app-shell.tsx), which hides that page
      // from screen readers too; an <aside> may not take role="dialog".
      onKeyDown={trapTab}
    >
      <div className="sidebar-brand">
        <Link to="/" className="brand-link" onClick={onNavigate} aria-label="Options Journal home">
          <Logo compact={contracted} />
        </Link>
        <button
          type="button"
          className="icon-button sidebar-collapse"
          onClick={onToggleContracted}
          aria-label={contracted ? 'Expand sidebar' : 'Collapse sidebar'}
          aria-pressed={contracted}
        >
          <Icon name={contracted ? 'chevronRight' : 'chevronLeft'} />
        </button>
      </div>
      <div className="sidebar-user">
        <Avatar src={session.user?.avatar} name={session.user?.name} size={40} />
        <div className="sidebar-user-text">
          <div className="sidebar-user-greeting">Hi, {first}</div>
          <Link to="/logout" className="sidebar-signout">
            Sign Out
          </Link>
        </div>
      </div>
      {!session.subscriptionActive && session.subsStatus !== null && (
        // Part 1 §2: an expired subscription gets a way back from every page.
        <Link to="/subscription" className="btn btn-primary btn-sm sidebar-renew" onClick={onNavigate} title="Your subscription has expired, please renew">
          <Icon name="card" />
          <span className="nav-label">Renew Now</span>
        </Link>
      )}
      <nav className="sidebar-nav">
        <ul>
          {main.map((e) => (
            <Item key={e.to} entry={e} contracted={contracted} onNavigate={onNavigate} />
          ))}
        </ul>
        <div className="nav-group-title">Trades</div>
        <ul>
          {trades.map((e) => (
            <Item key={e.to} entry={e} contracted={contracted} onNavigate={onNavigate} />
          ))}
        </ul>
        <div className="nav-group-title">Analyze &amp; manage</div>
        <ul>
          {more.map((e) => (
            <Item key={e.to} entry={e} contracted={contracted} onNavigate={onNavigate} />
          ))}
        </ul>
        {admin.some((e) => e.roles.includes(String(session.privilege))) && (
          <>
            <div className="nav-group-title">Admin</div>
            <ul>
              {admin.filter((e) => e.roles.includes(String(session.privilege))).map((e) => (
                <Item key={e.to} entry={e} contracted={contracted} onNavigate={onNavigate} />
              ))}
            </ul>
          </>
        )}
      </nav>
    </aside>
  );
}
