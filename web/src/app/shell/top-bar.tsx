import type { Ref } from 'react';
import { Link } from 'react-router';
import { Logo } from '@/components/logo.tsx';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { ExpiringBell } from '@/features/trades/components/expiring-bell.tsx';
import { Avatar } from '@/components/ui/avatar.tsx';
import { DropdownMenu } from '@/components/ui/dropdown-menu.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { NewRecordMenu } from './new-record-menu.tsx';
import { SIDEBAR_ID } from './sidebar.tsx';
import { SETTINGS_PANEL_ID } from './settings-panel.tsx';

export interface TopBarProps {
  onOpenMobileNav: () => void;
  /** Whether the navigation drawer (small screens) is open. */
  mobileNavOpen: boolean;
  /** The hamburger, which gets focus back when the drawer closes. */
  menuButtonRef?: Ref<HTMLButtonElement>;
  settingsVisible: boolean;
  onToggleSettings: () => void;
}

export function TopBar({ onOpenMobileNav, mobileNavOpen, menuButtonRef, settingsVisible, onToggleSettings }: TopBarProps) {
  const session = useSession();
  const name = session.user?.name ?? '';
  return (
    <header className="topbar">
      <button
        ref={menuButtonRef}
        type="button"
        className="icon-button topbar-menu"
        aria-label="Open navigation"
        aria-expanded={mobileNavOpen}
        aria-controls={SIDEBAR_ID}
        onClick={onOpenMobileNav}
      >
        <Icon name="menu" size={22} />
      </button>
      <Link to="/dashboard" className="topbar-brand" aria-label="Options Journal dashboard">
        <Logo compact />
      </Link>
      <div className="topbar-spacer" />
      <NewRecordMenu />
      <button type="button" className="icon-button" aria-label="Display settings" aria-expanded={settingsVisible} aria-controls={settingsVisible ? SETTINGS_PANEL_ID : undefined} onClick={onToggleSettings} data-settings-toggle>
        <Icon name="settings" />
      </button>
      <ExpiringBell />
      {/* The button's name starts with its visible greeting, so a voice command that says what it sees reaches it. */}
      <DropdownMenu
        label={`Hi, ${name.split(' ')[0]}: user menu`}
        triggerClassName="user-menu-trigger"
        trigger={
          <>
            <Avatar src={session.user?.avatar} name={name} size={32} />
            <span className="user-menu-name">Hi, {name.split(' ')[0]}</span>
            <Icon name="chevronDown" size={16} />
          </>
        }
        header={
          <div className="user-menu-header">
            <div className="user-menu-header-name">{name}</div>
            <div className="user-menu-header-email">{session.user?.email}</div>
          </div>
        }
        items={[
          { label: 'Profile', to: '/profile', icon: <Icon name="profile" /> },
          { label: 'Subscription', to: '/subscription', icon: <Icon name="card" /> },
          { label: 'Contact', to: '/contact', icon: <Icon name="mail" /> },
          'separator',
          { label: 'Logout', to: '/logout', icon: <Icon name="logout" />, tone: 'danger' },
        ]}
      />
    </header>
  );
}
