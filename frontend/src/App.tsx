import { useEffect } from 'react';
import { ensureCurrentUser, loadCurrentUser, useAuth } from './lib/auth';
import { navigate, useRoute } from './lib/router';
import { LoginPage } from './pages/LoginPage';
import { CanvasListPage } from './pages/CanvasListPage';
import { CanvasPage } from './pages/CanvasPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { ChatPanel } from './chat/ChatPanel';
import { Spinner } from './components/Spinner';
import { Toasts } from './components/Toasts';
import { ErrorBoundary } from './components/ErrorBoundary';
import { useTranslation } from 'react-i18next';

export function App() {
  const { t } = useTranslation();
  const route = useRoute();
  const auth = useAuth();

  useEffect(() => {
    void ensureCurrentUser();
  }, []);

  // Redirects between the login page and the app.
  useEffect(() => {
    if (auth.status === 'anonymous' && route.name !== 'login') {
      const here = window.location.pathname + window.location.search;
      navigate(here === '/' ? '/login/' : `/login/?next=${encodeURIComponent(here)}`, { replace: true });
    } else if (auth.status === 'authenticated' && route.name === 'login') {
      navigate(route.next ?? '/', { replace: true });
    }
  }, [auth.status, route]);

  let page;
  if (auth.status === 'loading') page = <Spinner label={t('app.loading')} />;
  else if (auth.status === 'error')
    page = (
      <div className="empty-state big" role="alert">
        <h1>{t('app.unreachable')}</h1>
        <p className="muted">{auth.message}</p>
        <button className="btn btn-primary" onClick={() => void loadCurrentUser()}>
          {t('actions.retry')}
        </button>
      </div>
    );
  else if (route.name === 'login') page = auth.status === 'anonymous' ? <LoginPage next={route.next} /> : <Spinner />;
  else if (auth.status !== 'authenticated') page = <Spinner />;
  else if (route.name === 'list') page = <CanvasListPage />;
  else if (route.name === 'canvas') page = <CanvasPage key={route.id} canvasId={route.id} chat={<ChatPanel />} />;
  else page = <NotFoundPage />;

  return (
    <>
      <ErrorBoundary label="page" key={route.name === 'canvas' ? `c-${route.id}` : route.name}>
        {page}
      </ErrorBoundary>
      <Toasts />
    </>
  );
}
