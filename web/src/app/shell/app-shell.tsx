import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { Outlet, useLocation, useMatches } from 'react-router';
import { useAccounts } from '@/features/accounts/api/get-accounts.ts';
import { useStrategies } from '@/features/strategies/api/get-strategies.ts';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { errorMessage } from '@/lib/api-client.ts';
import { useLostFocus } from '@/lib/use-lost-focus.ts';
import { peekSessionDraft } from '@/lib/session-drafts.ts';
import { KEPT_TRADE_ACTION } from '@/features/trades/utils/kept-trade-action-key.ts';
import { Button } from '@/components/ui/button.tsx';
import { FullScreenSpinner } from '@/components/ui/spinner.tsx';
import { SubscriptionExpired } from '@/components/subscription-expired.tsx';
import { Footer } from './footer.tsx';
import { SettingsPanel } from './settings-panel.tsx';
import { MOBILE_NAV_QUERY, Sidebar } from './sidebar.tsx';
import { TopBar } from './top-bar.tsx';
import { usePersistentFlag } from './use-persistent-flag.ts';

// Loaded only when a close, roll, split or edit form was open as the session ran out (see below).
const KeptTradeActionHost = lazy(async () => ({ default: (await import('@/features/trades/components/kept-trade-action-host.tsx')).KeptTradeActionHost }));

export interface RouteHandle {
  /** The page is replaced by the "subscription expired" screen when the subscription is not active. */
  requiresActiveSubscription?: boolean;
  /**
   * Asks for the page's data when the shell opens with the page, beside the accounts and strategies the
   * shell waits for before it renders any page (otherwise the page's own request waits a round trip).
   */
  prefetch?: (queryClient: QueryClient) => void;
}

/**
 * The private layout: sidebar, top bar, page, footer. Nothing renders until the trade accounts and the
 * strategy catalogue have loaded, because every private page reads them.
 */
export function AppShell() {
  const [contracted, setContracted] = usePersistentFlag('oj.sidebar.contracted', false);
  const [settingsVisible, setSettingsVisible] = usePersistentFlag('oj.settings.visible', false);
  const [mobileOpen, setMobileOpen] = useState(false);
  const { pathname } = useLocation();
  const matches = useMatches();
  const session = useSession();
  const accounts = useAccounts();
  const strategies = useStrategies();
  const queryClient = useQueryClient();
  const waiting = accounts.isPending || strategies.isPending;
  const [waitingAtOpen] = useState(waiting);
  const locked = !session.subscriptionActive && matches.some((m) => (m.handle as RouteHandle | undefined)?.requiresActiveSubscription);
  useEffect(() => {
    // Once, for the page the shell opened with, while it waits: later pages render at once and ask for
    // their own data; a locked page shows no data.
    if (!waitingAtOpen || locked) return;
    for (const m of matches) (m.handle as RouteHandle | undefined)?.prefetch?.(queryClient);
  }, []);
  // Signed in, or signed out of another page: focus goes to the page's content, not the document's top.
  const mainRef = useRef<HTMLElement>(null);
  const ready = !waiting && !accounts.isError && !strategies.isError;
  useLostFocus(mainRef, `${pathname}|${ready}`);
  // A one-trade form open when the session ran out is opened again, with its input, after this sign-in.
  const [keptAction] = useState(() => peekSessionDraft(KEPT_TRADE_ACTION, session.user?.user_uid) !== undefined);

  // Small screens: the open drawer is a modal navigation (QA: Tab went on to the controls under it). Focus
  // moves to its first link, Tab stays in it (sidebar.tsx), the page behind is inert, and Escape, the scrim
  // or a link closes it and gives focus back to the hamburger.
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  useEffect(() => setMobileOpen(false), [pathname]);
  useEffect(() => {
    if (!mobileOpen) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setMobileOpen(false);
    document.addEventListener('keydown', onKey);
    // Widened past the drawer's breakpoint (a rotated tablet): the sidebar is a sidebar again.
    const narrow = window.matchMedia(MOBILE_NAV_QUERY);
    const onWiden = () => !narrow.matches && setMobileOpen(false);
    narrow.addEventListener('change', onWiden);
    return () => {
      document.removeEventListener('keydown', onKey);
      narrow.removeEventListener('change', onWiden);
    };
  }, [mobileOpen]);
  useEffect(() => {
    if (mobileOpen) wasOpen.current = true;
    else if (wasOpen.current) {
      wasOpen.current = false;
      const button = menuButtonRef.current;
      if (button && button.getClientRects().length > 0) button.focus();
    }
  }, [mobileOpen]);

  // A journal that could not load (the browser was offline, or the server unreachable) tries again by
  // itself once the connection returns; queries that failed do not resume on their own, as paused ones do.
  const failed = accounts.isError || strategies.isError;
  const { refetch: refetchAccounts } = accounts;
  const { refetch: refetchStrategies } = strategies;
  useEffect(() => {
    if (!failed) return;
    const retry = () => {
      void refetchAccounts();
      void refetchStrategies();
    };
    window.addEventListener('online', retry);
    return () => window.removeEventListener('online', retry);
  }, [failed, refetchAccounts, refetchStrategies]);

  if (waiting) return <FullScreenSpinner label="Loading your journal" />;
  if (failed) {
    const message = accounts.isError ? errorMessage(accounts.error, 'Failed to fetch account data.') : errorMessage(strategies.error, 'Failed to fetch strategies.');
    return (
      <main className="error-page">
        <div className="error-page-card">
          <h1 className="error-page-title">Could not load your journal</h1>
          <p className="error-page-text">{message}</p>
          <Button
            onClick={() => {
              void accounts.refetch();
              void strategies.refetch();
            }}
          >
            Try again
          </Button>
        </div>
      </main>
    );
  }

  return (
    <div className={`app-shell${contracted ? ' sidebar-contracted' : ''}`}>
      <a href="#main" className="skip-link" inert={mobileOpen}>
        Skip to content
      </a>
      <Sidebar contracted={contracted} onToggleContracted={() => setContracted((c) => !c)} mobileOpen={mobileOpen} onNavigate={() => setMobileOpen(false)} />
      {mobileOpen && <div className="sidebar-scrim" onClick={() => setMobileOpen(false)} aria-hidden="true" />}
      <div className="app-main" inert={mobileOpen}>
        <TopBar onOpenMobileNav={() => setMobileOpen(true)} mobileNavOpen={mobileOpen} menuButtonRef={menuButtonRef} settingsVisible={settingsVisible} onToggleSettings={() => setSettingsVisible((v) => !v)} />
        {settingsVisible && <SettingsPanel onClose={() => setSettingsVisible(false)} contracted={contracted} onContractedChange={setContracted} />}
        <main id="main" className="app-content" tabIndex={-1} ref={mainRef}>
          {locked ? <SubscriptionExpired /> : <Outlet />}
        </main>
        {keptAction && !locked && (
          <Suspense fallback={null}>
            <KeptTradeActionHost />
          </Suspense>
        )}
        <Footer />
      </div>
    </div>
  );
}
