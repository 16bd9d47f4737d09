import { Suspense, useEffect } from 'react';
import { Outlet, useLocation, useNavigation } from 'react-router';
import { NewVersionBanner } from '@/components/ui/new-version-banner.tsx';
import { OfflineBanner } from '@/components/ui/offline-banner.tsx';
import { FullScreenSpinner } from '@/components/ui/spinner.tsx';
import { StartupScreen } from '@/components/ui/startup-screen.tsx';

/** The root of every page: scroll to top on each route change, a thin bar while a lazy page loads, a word when offline, the journal's start-up progress. */
export function RootLayout() {
  const { pathname } = useLocation();
  const navigation = useNavigation();
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
  return (
    <>
      {navigation.state === 'loading' && <div className="route-progress" role="progressbar" aria-label="Loading page" />}
      <div className="banner-stack">
        <OfflineBanner />
        <NewVersionBanner />
      </div>
      <StartupScreen />
      <Suspense fallback={<FullScreenSpinner />}>
        <Outlet />
      </Suspense>
    </>
  );
}

/** Shown by the router while the first lazy route of a cold load resolves. */
export function HydrateFallback() {
  return <FullScreenSpinner />;
}
