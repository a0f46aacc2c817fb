import { useEffect, useRef, useState, type ReactNode } from 'react';
import { LogoMark, LogOutIcon, MenuIcon } from './Icons';
import { Avatar } from './Avatar';
import { linkHandler, navigate } from '../lib/router';
import { api } from '../api/client';
import { setCurrentUser, useAuth } from '../lib/auth';
import { toast } from '../lib/toast';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from './LanguageSwitch';
import './AppHeader.css';

interface Props {
  /** breadcrumb / title area */
  children?: ReactNode;
  /** right-aligned tools before the user menu; on narrow screens they fold into the menu */
  right?: ReactNode;
  /** small status shown in the bar at every width (e.g. the connection pill) */
  pinned?: ReactNode;
}

export function AppHeader({ children, right, pinned }: Props) {
  const { t } = useTranslation();
  const auth = useAuth();
  const [menuOpen, setMenuOpen] = useState(false);
  const headerRef = useRef<HTMLElement>(null);

  // The narrow-screen menu closes on a tap outside it or on Escape.
  useEffect(() => {
    if (!menuOpen) return;
    const onDown = (e: PointerEvent) => {
      if (!headerRef.current?.contains(e.target as Node)) setMenuOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setMenuOpen(false);
    document.addEventListener('pointerdown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [menuOpen]);

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
    <header className="app-header" ref={headerRef}>
      <a href="/" className="brand" onClick={linkHandler('/')} aria-label={t('header.home')}>
        <LogoMark />
        <span className="brand-name">Canvasweb</span>
      </a>
      <div className="header-main">{children}</div>
      {pinned && <div className="header-pinned">{pinned}</div>}
      <button
        className="icon-btn header-menu-btn"
        onClick={() => setMenuOpen((v) => !v)}
        aria-expanded={menuOpen}
        aria-label={t('header.menu')}
        title={t('header.menu')}
        data-testid="header-menu-button"
      >
        <MenuIcon />
      </button>
      {/* A button inside the menu does its job and closes the menu (the language select keeps it open). */}
      <div className={`header-right${menuOpen ? ' open' : ''}`} onClick={(e) => (e.target as HTMLElement).closest('button') && setMenuOpen(false)}>
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
