import type { ReactNode } from 'react';
import { LogoMark, LogOutIcon } from './Icons';
import { Avatar } from './Avatar';
import { linkHandler, navigate } from '../lib/router';
import { api } from '../api/client';
import { setCurrentUser, useAuth } from '../lib/auth';
import { toast } from '../lib/toast';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from './LanguageSwitch';

interface Props {
  /** breadcrumb / title area */
  children?: ReactNode;
  /** right-aligned tools before the user menu */
  right?: ReactNode;
}

export function AppHeader({ children, right }: Props) {
  const { t } = useTranslation();
  const auth = useAuth();
  const logout = async () => {
    try {
      await api.logout();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : t('header.signOutFailed'));
      return;
    }
    setCurrentUser(null);
    navigate('/login/');
  };
  return (
    <header className="app-header">
      <a href="/" className="brand" onClick={linkHandler('/')} aria-label={t('header.home')}>
        <LogoMark />
        <span className="brand-name">Canvasweb</span>
      </a>
      <div className="header-main">{children}</div>
      <div className="header-right">
        {right}
        <LanguageSwitch />
        {auth.user && (
          <div className="user-chip">
            <Avatar name={auth.user.username} size={26} />
            <span className="user-name" data-testid="current-user">
              {auth.user.username}
            </span>
            <button className="icon-btn" onClick={logout} title={t('header.signOut')} aria-label={t('header.signOut')} data-testid="logout-button">
              <LogOutIcon />
            </button>
          </div>
        )}
      </div>
    </header>
  );
}
