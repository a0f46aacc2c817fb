import { AppHeader } from '../components/AppHeader';
import { linkHandler } from '../lib/router';
import { useTranslation } from 'react-i18next';

export function NotFoundPage({ message }: { message?: string }) {
  const { t } = useTranslation('pages');
  return (
    <div className="page">
      <AppHeader />
      <main className="empty-state big" data-testid="not-found">
        <h1>{t('notFound.title')}</h1>
        <p className="muted">{message ?? t('notFound.message')}</p>
        <a className="btn btn-primary" href="/" onClick={linkHandler('/')}>
          {t('notFound.back')}
        </a>
      </main>
    </div>
  );
}
