import { useEffect } from 'react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { ErrorPage } from '@/components/error-page.tsx';

/**
 * A lazy screen's code or styles that failed to load: a stale tab after a deployment, or no connection.
 * The browser's import fails with a TypeError; Vite's preload of the screen's CSS with an Error of its own.
 */
const isChunkFailure = (error: unknown) =>
  (error instanceof TypeError && /dynamically imported module|Importing a module script failed|Failed to fetch/i.test(error.message)) ||
  (error instanceof Error && /^Unable to preload CSS for /.test(error.message));

/** Any error thrown while rendering or loading a route: a 500-style page, or not-found for 404s. */
export function RouteErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) {
    return <ErrorPage code="404" title="Page not found" message="The page you are looking for does not exist or has been moved." />;
  }
  const chunkFailed = isChunkFailure(error);
  // Offline, a screen not visited yet cannot load its code: that is no new version (QA 72: "A new version
  // is available" that stayed after the connection returned). It opens by itself once the browser is back.
  if (chunkFailed && !navigator.onLine) return <OfflineScreen />;
  console.error(error);
  // A new deployment replaces the hashed chunks; a stale tab fails to import them. Reloading fixes it.
  return (
    <ErrorPage
      // A new version is no server error (QA 73: a big "500" above "A new version is available").
      code={chunkFailed ? 'Update' : '500'}
      title={chunkFailed ? 'A new version is available' : 'Something went wrong'}
      message={chunkFailed ? 'Reload the page to get the latest version of the console.' : 'An unexpected error occurred. Please try again, or go back home.'}
      reload={chunkFailed}
    />
  );
}

/** Waits for the connection, then loads the page again (the failed import is not retried in place). */
function OfflineScreen() {
  useEffect(() => {
    const back = () => window.location.reload();
    window.addEventListener('online', back);
    return () => window.removeEventListener('online', back);
  }, []);
  return <ErrorPage code="Offline" title="You are offline" message="This screen has not been loaded yet. It opens by itself when the connection returns." reload />;
}
