import { ErrorPage } from '@/components/error-page.tsx';

export function NotFoundRoute() {
  return <ErrorPage code="404" title="Page not found" message="The page you are looking for does not exist or has been moved." />;
}
