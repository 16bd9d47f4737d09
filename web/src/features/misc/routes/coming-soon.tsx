import { Link } from 'react-router';
import { EmptyState } from '../../../components/ui/empty-state.tsx';
import { PageHeader } from '../../../components/layout/page-header.tsx';

/** An honest placeholder for a private page that is not built yet: no sample data. */
export function ComingSoonRoute({ title, description }: { title: string; description: string }) {
  return (
    <>
      <PageHeader title={title} />
      <div className="card">
        <EmptyState
          title="Coming soon"
          description={<p>{description} This page is not available yet.</p>}
          action={
            <Link to="/accounts" className="btn btn-secondary btn-md">
              Manage trade accounts
            </Link>
          }
        />
      </div>
    </>
  );
}
