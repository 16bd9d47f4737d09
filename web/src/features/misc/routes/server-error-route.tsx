import { ErrorPage } from '@/components/error-page.tsx';

export function ServerErrorRoute() {
  return <ErrorPage code="500" title="Something went wrong" message="The server ran into an error. Please try again in a moment." />;
}
