import { useCallback, useEffect, useState, type FormEvent } from 'react';
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
  owner: 'Everything, including secret nodes and members',
  editor: 'Edit public and internal nodes',
  viewer: 'Read public nodes only',
};

export function MembersDialog({ canvasId, me, isOwner, onClose }: Props) {
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
      setInviteError('Enter a username.');
      return;
    }
    setBusy(true);
    setInviteError(null);
    try {
      await api.addMember(canvasId, username.trim(), role);
      toast.success(`Added ${username.trim()} as ${role}`);
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
      toast.error(errorMessage(err), 'Could not change role');
    }
  };

  const remove = async (m: Member) => {
    setConfirmRemove(null);
    try {
      await api.removeMember(canvasId, m.user.id);
      setMembers((ms) => (ms ?? []).filter((x) => x.user.id !== m.user.id));
    } catch (err) {
      toast.error(errorMessage(err), 'Could not remove member');
    }
  };

  return (
    <Dialog title="Members" onClose={onClose} width={520} testId="members-dialog">
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      {!members && !error && <div className="muted">Loading members…</div>}
      {members && (
        <ul className="member-list">
          {members.map((m) => {
            const isMe = me?.id === m.user.id;
            return (
              <li key={m.user.id} className="member-row" data-testid={`member-row-${m.user.username}`}>
                <Avatar name={m.user.username} size={30} />
                <div className="member-name">
                  {m.user.username}
                  {isMe && <span className="muted"> (you)</span>}
                  <div className="muted small">{ROLE_HINT[m.role]}</div>
                </div>
                {isOwner && !isMe && confirmRemove === m.user.id ? (
                  <>
                    <button className="btn btn-small" onClick={() => setConfirmRemove(null)}>
                      Cancel
                    </button>
                    <button
                      className="btn btn-small btn-danger"
                      onClick={() => void remove(m)}
                      data-testid={`member-remove-confirm-${m.user.username}`}
                    >
                      Remove
                    </button>
                  </>
                ) : isOwner && !isMe ? (
                  <>
                    <select
                      value={m.role}
                      aria-label={`Role of ${m.user.username}`}
                      onChange={(e) => void changeRole(m, e.target.value as Role)}
                      data-testid={`member-role-${m.user.username}`}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                    <button
                      className="icon-btn danger"
                      aria-label={`Remove ${m.user.username}`}
                      title="Remove"
                      onClick={() => setConfirmRemove(m.user.id)}
                      data-testid={`member-remove-${m.user.username}`}
                    >
                      <TrashIcon size={14} />
                    </button>
                  </>
                ) : (
                  <span className={`role-badge role-${m.role}`}>{m.role}</span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {isOwner && (
        <form className="invite-form" onSubmit={invite}>
          <div className="invite-title">Invite by username</div>
          <div className="invite-row">
            <input
              placeholder="username"
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              aria-label="Username to invite"
              data-testid="invite-username"
            />
            <select value={role} onChange={(e) => setRole(e.target.value as Role)} aria-label="Role" data-testid="invite-role">
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <button className="btn btn-primary" type="submit" disabled={busy} data-testid="invite-submit">
              {busy ? 'Adding…' : 'Invite'}
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
