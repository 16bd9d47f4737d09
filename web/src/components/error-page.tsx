import { useNavigate } from 'react-router';
import { Button } from './ui/button.tsx';
import './error-page.css';

export interface ErrorPageProps {
  code: string;
  title: string;
  message: string;
  /** Offer a reload instead of only the home link. */
  reload?: boolean;
}

/** The full-page error layout (not-found, server error, examples). The "Go back home" button leads to the dashboard. */
export function ErrorPage({ code, title, message, reload }: ErrorPageProps) {
  const navigate = useNavigate();
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
          <Button onClick={() => void navigate('/dashboard')}>Go back home</Button>
        </div>
      </div>
    </main>
  );
}
