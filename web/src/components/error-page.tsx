import { Link } from 'react-router';

export interface ErrorPageProps {
  code: string;
  title: string;
  message: string;
  /** Offer a reload instead of only the home link. */
  reload?: boolean;
}

/** The full-page error layout (not-found, server error, examples). "Go back home" leads to the dashboard. */
export function ErrorPage({ code, title, message, reload }: ErrorPageProps) {
  return (
    <main className="error-page">
      <div className="error-page-card">
        <div className="error-page-code" aria-hidden="true">
          {code}
        </div>
        <h1 className="error-page-title">{title}</h1>
        <p className="error-page-text">{message}</p>
        <div className="error-page-actions">
          {reload && (
            <button type="button" className="btn btn-secondary btn-md" onClick={() => window.location.reload()}>
              Reload
            </button>
          )}
          <Link to="/dashboard" className="btn btn-primary btn-md">
            Go back home
          </Link>
        </div>
      </div>
    </main>
  );
}
