import { AppHeader } from '../components/AppHeader';
import { linkHandler } from '../lib/router';

export function NotFoundPage({ message = 'This page does not exist.' }: { message?: string }) {
  return (
    <div className="page">
      <AppHeader />
      <main className="empty-state big" data-testid="not-found">
        <h1>Not found</h1>
        <p className="muted">{message}</p>
        <a className="btn btn-primary" href="/" onClick={linkHandler('/')}>
          Back to canvases
        </a>
      </main>
    </div>
  );
}
