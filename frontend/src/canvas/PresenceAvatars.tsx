import type { PresencePeer, SyncEngine } from '../sync/engine';
import { usePeers } from './context';
import type { UserRef } from '../api/types';
import { Avatar } from '../components/Avatar';
import { useTranslation } from 'react-i18next';

interface Props {
  me: UserRef | null;
  engine: SyncEngine;
  onFollow(peer: PresencePeer): void;
}

/** Who is here: one avatar per user (several tabs collapse), me first. */
export function PresenceAvatars({ me, engine, onFollow }: Props) {
  const { t } = useTranslation('canvas');
  const peers = usePeers(engine);
  const byUser = new Map<number, PresencePeer>();
  for (const p of peers) {
    const prev = byUser.get(p.user.id);
    if (!prev || p.updatedAt > prev.updatedAt) byUser.set(p.user.id, p);
  }
  if (me) byUser.delete(me.id);
  const others = [...byUser.values()].sort((a, b) => a.user.username.localeCompare(b.user.username));
  const shown = others.slice(0, 5);
  return (
    <div className="presence" data-testid="presence-avatars" aria-label={t('presence.label')}>
      {shown.map((p) => (
        <Avatar
          key={p.user.id}
          name={p.user.username}
          color={p.color}
          size={28}
          ring
          title={t('presence.follow', { name: p.user.username })}
          onClick={() => onFollow(p)}
          testId={`presence-avatar-${p.user.username}`}
        />
      ))}
      {others.length > shown.length && <span className="avatar avatar-more">+{others.length - shown.length}</span>}
      {me && <Avatar name={me.username} size={28} ring title={t('presence.you', { name: me.username })} testId="presence-me" />}
    </div>
  );
}
