import type { ReactFlowInstance } from '@xyflow/react';
import { useTranslation } from 'react-i18next';
import type { Role, UserRef } from '../../api/types';
import { AppHeader } from '../../components/AppHeader';
import { ActivityIcon, EyeIcon, SettingsIcon, UsersIcon } from '../../components/Icons';
import { linkHandler } from '../../lib/router';
import { ConnectionIndicator } from '../../canvas/ConnectionIndicator';
import { PresenceAvatars } from '../../canvas/PresenceAvatars';
import type { EngineState, SyncEngine } from '../../sync/engine';

interface Props {
  engine: SyncEngine;
  state: EngineState;
  rf: ReactFlowInstance;
  role: Role | null;
  name: string;
  me: UserRef | null;
  onAudit(): void;
  onSettings(): void;
  onMembers(): void;
}

/** The canvas page's header: breadcrumbs with the role, who is here, the connection, and the owner's buttons. */
export function CanvasHeader({ engine, state, rf, role, name, me, onAudit, onSettings, onMembers }: Props) {
  const { t } = useTranslation('canvas');
  return (
    <AppHeader
      pinned={<ConnectionIndicator state={state} engine={engine} />}
      right={
        <>
          <PresenceAvatars
            me={me}
            engine={engine}
            onFollow={(p) => p.viewport && void rf.setCenter(p.viewport.x, p.viewport.y, { zoom: p.viewport.zoom, duration: 400 })}
          />
          {role === 'owner' && (
            <button className="btn btn-small" onClick={onAudit} data-testid="audit-button" title={t('page.auditHint')}>
              <ActivityIcon size={14} /> {t('page.audit')}
            </button>
          )}
          {role === 'owner' && (
            <button className="btn btn-small" onClick={onSettings} data-testid="settings-button" title={t('page.settingsHint')}>
              <SettingsIcon size={14} /> {t('page.settings')}
            </button>
          )}
          <button className="btn btn-small" onClick={onMembers} data-testid="members-button">
            <UsersIcon size={14} /> {role === 'owner' ? t('page.share') : t('page.members')}
          </button>
        </>
      }
    >
      <nav className="crumbs" aria-label={t('page.breadcrumb')}>
        <a href="/" onClick={linkHandler('/')} className="crumb-link">
          {t('pages:list.title')}
        </a>
        <span className="crumb-sep">/</span>
        <span className="crumb" data-testid="canvas-name" title={name}>
          {name}
        </span>
        {role && !state.revoked && (
          <span className={`role-badge role-${role}`} data-testid="role-badge">
            {t(`common:roles.${role}`)}
          </span>
        )}
        {role === 'viewer' && (
          <span className="readonly-badge" data-testid="readonly-badge" title={t('page.readOnlyHint')}>
            <EyeIcon size={12} /> {t('page.readOnly')}
          </span>
        )}
      </nav>
    </AppHeader>
  );
}

/** Shown when the owner took this user's membership away (close 4403). */
export function RevokedBanner() {
  const { t } = useTranslation('canvas');
  return (
    <div className="banner banner-error" role="alert" data-testid="revoked-banner">
      {t('page.revoked')}{' '}
      <a href="/" onClick={linkHandler('/')}>
        {t('pages:notFound.back')}
      </a>
    </div>
  );
}
