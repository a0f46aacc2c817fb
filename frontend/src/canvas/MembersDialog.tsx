import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, errorMessage } from '../api/client';
import { ROLES, type Member, type Role, type UserRef } from '../api/types';
import { Avatar } from '../components/Avatar';
import { Dialog } from '../components/Dialog';
import { TrashIcon } from '../components/Icons';
import { toast } from '../lib/toast';

interface Props {
  canvasId: string;
  me: UserRef | null;
  isOwner: boolean;
  onClose(): void;
}

const ROLE_HINT: Record<Role, string> = {
  owner: 'members.roleHint.owner',
  editor: 'members.roleHint.editor',
  viewer: 'members.roleHint.viewer',
};

export function MembersDialog({ canvasId, me, isOwner, onClose }: Props) {
  const { t } = useTranslation('editing');
  const [members, setMembers] = useState<Member[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [inviteError, setInviteError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState<number | null>(null);

  const load = useCallback(async () => {
    try {
      const list = await api.listMembers(canvasId);
      setMembers(Array.isArray(list) ? list : []);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [canvasId]);

  useEffect(() => {
    void load();
  }, [load]);

  const invite = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim()) {
      setInviteError(t('members.enterUsername'));
      return;
    }
    setBusy(true);
    setInviteError(null);
    try {
      await api.addMember(canvasId, username.trim(), role);
      toast.success(t('members.added', { username: username.trim(), role: t(`common:roles.${role}`) }));
      setUsername('');
      await load();
    } catch (err) {
      setInviteError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const changeRole = async (m: Member, next: Role) => {
    try {
      await api.updateMember(canvasId, m.user.id, next);
      setMembers((ms) => (ms ?? []).map((x) => (x.user.id === m.user.id ? { ...x, role: next } : x)));
    } catch (err) {
      toast.error(errorMessage(err), t('members.changeRoleFailed'));
    }
  };

  const remove = async (m: Member) => {
    setConfirmRemove(null);
    try {
      await api.removeMember(canvasId, m.user.id);
      setMembers((ms) => (ms ?? []).filter((x) => x.user.id !== m.user.id));
    } catch (err) {
      toast.error(errorMessage(err), t('members.removeFailed'));
    }
  };

  return (
    <Dialog title={t('members.title')} onClose={onClose} width={520} testId="members-dialog">
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      {!members && !error && <div className="muted">{t('members.loading')}</div>}
      {members && (
        <ul className="member-list">
          {members.map((m) => {
            const isMe = me?.id === m.user.id;
            return (
              <li key={m.user.id} className="member-row" data-testid={`member-row-${m.user.username}`}>
                <Avatar name={m.user.username} size={30} />
                <div className="member-name">
                  {m.user.username}
                  {isMe && <span className="muted"> {t('members.you')}</span>}
                  <div className="muted small">{t(ROLE_HINT[m.role])}</div>
                </div>
                {isOwner && !isMe && confirmRemove === m.user.id ? (
                  <>
                    <button className="btn btn-small" onClick={() => setConfirmRemove(null)}>
                      {t('drafts.cancel')}
                    </button>
                    <button
                      className="btn btn-small btn-danger"
                      onClick={() => void remove(m)}
                      data-testid={`member-remove-confirm-${m.user.username}`}
                    >
                      {t('members.remove')}
                    </button>
                  </>
                ) : isOwner && !isMe ? (
                  <>
                    <select
                      value={m.role}
                      aria-label={t('members.roleOf', { username: m.user.username })}
                      onChange={(e) => void changeRole(m, e.target.value as Role)}
                      data-testid={`member-role-${m.user.username}`}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {t(`common:roles.${r}`)}
                        </option>
                      ))}
                    </select>
                    <button
                      className="icon-btn danger"
                      aria-label={t('members.removeUser', { username: m.user.username })}
                      title={t('members.remove')}
                      onClick={() => setConfirmRemove(m.user.id)}
                      data-testid={`member-remove-${m.user.username}`}
                    >
                      <TrashIcon size={14} />
                    </button>
                  </>
                ) : (
                  <span className={`role-badge role-${m.role}`}>{t(`common:roles.${m.role}`)}</span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {isOwner && (
        <form className="invite-form" onSubmit={invite}>
          <div className="invite-title">{t('members.inviteTitle')}</div>
          <div className="invite-row">
            <input
              placeholder={t('members.usernamePlaceholder')}
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              aria-label={t('members.usernameToInvite')}
              data-testid="invite-username"
            />
            <select value={role} onChange={(e) => setRole(e.target.value as Role)} aria-label={t('members.role')} data-testid="invite-role">
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {t(`common:roles.${r}`)}
                </option>
              ))}
            </select>
            <button className="btn btn-primary" type="submit" disabled={busy} data-testid="invite-submit">
              {busy ? t('members.adding') : t('members.invite')}
            </button>
          </div>
          {inviteError && (
            <div className="form-error" role="alert" data-testid="invite-error">
              {inviteError}
            </div>
          )}
        </form>
      )}
    </Dialog>
  );
}
