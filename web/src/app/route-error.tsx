import { isRouteErrorResponse, useRouteError } from 'react-router';
import { ErrorPage } from '@/components/error-page.tsx';

/** Any error thrown while rendering or loading a route: a 500-style page, or not-found for 404s. */
export function RouteErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) {
    return <ErrorPage code="404" title="Page not found" message="The page you are looking for does not exist or has been moved." />;
  }
  console.error(error);
  // A new deployment replaces the hashed chunks; a stale tab fails to import them. Reloading fixes it.
  const chunkFailed = error instanceof TypeError && /dynamically imported module|Importing a module script failed/i.test(error.message);
  return (
    <ErrorPage
      code="500"
      title={chunkFailed ? 'A new version is available' : 'Something went wrong'}
      message={chunkFailed ? 'Reload the page to get the latest version of the console.' : 'An unexpected error occurred. Please try again, or go back home.'}
      reload={chunkFailed}
    />
  );
}
