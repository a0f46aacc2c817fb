import type { ReactNode } from 'react';
import { LogoMark, LogOutIcon } from './Icons';
import { Avatar } from './Avatar';
import { linkHandler, navigate } from '../lib/router';
import { api } from '../api/client';
import { setCurrentUser, useAuth } from '../lib/auth';
import { toast } from '../lib/toast';

interface Props {
  /** breadcrumb / title area */
  children?: ReactNode;
  /** right-aligned tools before the user menu */
  right?: ReactNode;
}

export function AppHeader({ children, right }: Props) {
  const auth = useAuth();
  const logout = async () => {
    try {
      await api.logout();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Could not sign out');
      return;
    }
    setCurrentUser(null);
    navigate('/login/');
  };
  return (
    <header className="app-header">
      <a href="/" className="brand" onClick={linkHandler('/')} aria-label="Canvasweb home">
        <LogoMark />
        <span className="brand-name">Canvasweb</span>
      </a>
      <div className="header-main">{children}</div>
      <div className="header-right">
        {right}
        {auth.user && (
          <div className="user-chip">
            <Avatar name={auth.user.username} size={26} />
            <span className="user-name" data-testid="current-user">
              {auth.user.username}
            </span>
            <button className="icon-btn" onClick={logout} title="Sign out" aria-label="Sign out" data-testid="logout-button">
              <LogOutIcon />
            </button>
          </div>
        )}
      </div>
    </header>
  );
}
