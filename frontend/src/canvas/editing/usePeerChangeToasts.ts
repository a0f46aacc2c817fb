// Tells me, in a short toast, when another person replaces the text of a node I wrote or edited in this
// session (e.g. they chose "Keep mine" in the conflict dialog) or deletes it: otherwise my words vanish silently.
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChangeEvent } from '../../api/types';
import { snippet } from '../../lib/format';
import { toast } from '../../lib/toast';
import type { SyncEngine } from '../../sync/engine';

const SEEN_REVISIONS = 500;

export function usePeerChangeToasts(engine: SyncEngine) {
  const { t } = useTranslation('editing');
  useEffect(() => {
    const mine = new Set<string>(); // nodes whose text I created or changed
    const seen = new Set<number>(); // a revision can arrive twice (ack + change, catch-up)
    return engine.onChangeEvent((ev: ChangeEvent) => {
      if (seen.has(ev.revision)) return;
      seen.add(ev.revision);
      // A duplicate comes close behind its first copy: the last few hundred revisions are enough to remember.
      if (seen.size > SEEN_REVISIONS) seen.delete(seen.values().next().value as number);
      const me = engine.getSnapshot().user?.id;
      const actor = ev.actor?.kind === 'user' ? ev.actor.user : null;
      if (!actor || me === undefined) return;
      for (const c of ev.changes) {
        if (c.entity !== 'node' || typeof c.id !== 'string') continue;
        const textChanged = c.action === 'created' || (c.action === 'updated' && (c.fields ?? []).includes('content'));
        if (actor.id === me) {
          if (textChanged) mine.add(c.id);
          continue;
        }
        if (!mine.has(c.id)) continue;
        const text = snippet(engine.getNode(c.id)?.content ?? '', 40);
        if (c.action === 'deleted' || c.action === 'removed') {
          mine.delete(c.id);
          toast.info(t('peerChange.deleted', { user: actor.username, text }));
        } else if (textChanged) {
          mine.delete(c.id); // it is their text now
          toast.info(t('peerChange.replaced', { user: actor.username, text }));
        }
      }
    });
  }, [engine, t]);
}
