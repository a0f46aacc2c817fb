// Unacknowledged ops kept in IndexedDB, so a reload or a closed tab loses no edit.
import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { PendingStore, StoredOp } from './engine';

interface Saved {
  userId: number | string | null;
  ops: StoredOp[];
  savedAt: number;
}

let dbStore: UseStore | null = null;
function database(): UseStore {
  dbStore ??= createStore('canvasweb', 'pending-ops');
  return dbStore;
}

/**
 * One record per canvas. Writes are chained so an older save can never land
 * after a newer one; a browser without IndexedDB (private mode in some
 * browsers) simply keeps the queue in memory.
 */
export function indexedDbPendingStore(canvasId: string): (PendingStore & { flush(): Promise<void> }) | null {
  if (typeof indexedDB === 'undefined') return null;
  const key = `canvas:${canvasId}`;
  let chain: Promise<unknown> = Promise.resolve();
  return {
    async load() {
      const saved = (await get<Saved>(key, database())) ?? null;
      if (!saved || !Array.isArray(saved.ops)) return null;
      return { userId: saved.userId, ops: saved.ops };
    },
    save(state) {
      const record: Saved = { userId: state.userId, ops: state.ops, savedAt: Date.now() };
      chain = chain
        .then(() => (record.ops.length ? set(key, record, database()) : del(key, database())))
        .catch((err) => console.warn('could not keep unsent edits in IndexedDB', err));
    },
    /** Resolves once every save so far has landed. */
    async flush() {
      await chain;
    },
  };
}
