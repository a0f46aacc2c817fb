// The unacknowledged ops kept across page loads: loaded once at start, held until the welcome frame
// says who we are (one user's edits are never replayed under another login), saved on every change.

import type { UserRef } from '../api/types';
import type { PendingStore, StoredOp } from './engineTypes';

type Saved = { userId: number | string | null; ops: StoredOp[] };

export class OfflineQueue {
  /** ops restored from the store, held until welcome confirms the same user */
  private restored: Saved | null = null;
  /** the store's load has not finished yet */
  restoring = false;

  constructor(private readonly store: PendingStore | null) {}

  get enabled(): boolean {
    return this.store !== null;
  }

  get holdsRestored(): boolean {
    return this.restored !== null;
  }

  /** Restored ops still waiting to be adopted (the page warns before unload). */
  hasRestoredOps(): boolean {
    return (this.restored?.ops.length ?? 0) > 0;
  }

  /** Start loading the saved ops; `done` runs when the load finished or failed. */
  load(done: () => void): void {
    if (!this.store) return;
    this.restoring = true;
    this.store
      .load()
      .then((saved) => {
        if (saved && saved.ops.length > 0) this.restored = saved;
      })
      .catch(() => undefined)
      .finally(() => {
        this.restoring = false;
        done();
      });
  }

  /** Hand over the restored ops once, and only if they were saved by `user`. */
  takeFor(user: UserRef): StoredOp[] {
    const saved = this.restored;
    this.restored = null;
    if (saved && saved.ops.length > 0 && String(saved.userId) === String(user.id)) return saved.ops;
    return [];
  }

  /** Save the queue (`ops` is only read when there is a store to save to). */
  save(user: UserRef | null, ops: () => StoredOp[]): void {
    if (!this.store || this.restoring) return;
    const unacknowledged = ops();
    try {
      this.store.save({ userId: user?.id ?? null, ops: unacknowledged });
    } catch {
      /* storage full or unavailable: the queue still lives in memory */
    }
  }
}
