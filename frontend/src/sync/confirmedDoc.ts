// The confirmed server document at revision R (docs/protocol.md): a snapshot, then change events
// applied strictly in revision order. An event ahead of R + 1 waits in the gap buffer (catchUp.ts)
// until the missing ones come; an event at or before R is already in the document.
//
// What an event means for the pending ops (its op is committed) and for the session (canvas
// fields, my role) is the engine's business: it hears about each through the hooks.

import type { CanvasEdge, CanvasNode, ChangeEvent } from '../api/types';
import { perfMark } from '../lib/perfMarks';
import { applyChanges, docFromLists, EMPTY_DOC, type ChangeSideEffects, type Doc } from './apply';
import { GapBuffer } from './catchUp';

export interface ConfirmedDocHooks {
  /** The server has committed this event (old, applied now, or held for later). */
  committed(ev: ChangeEvent): void;
  /** What an applied event changed besides nodes and edges. */
  sideEffects(effects: ChangeSideEffects): void;
}

export class ConfirmedDoc {
  private current: Doc = EMPTY_DOC;
  private rev: number | null = null;
  private loaded = false;
  readonly gaps: GapBuffer;

  constructor(
    catchUpTimeoutMs: number,
    now: () => number,
    private readonly hooks: ConfirmedDocHooks,
  ) {
    this.gaps = new GapBuffer(catchUpTimeoutMs, now);
  }

  get doc(): Doc {
    return this.current;
  }

  /** The revision of `doc`; null before the first snapshot and after a resync. */
  get revision(): number | null {
    return this.rev;
  }

  /** True once a snapshot has been loaded (stays true across a resync: the old document still shows). */
  get synced(): boolean {
    return this.loaded;
  }

  loadSnapshot(nodes: CanvasNode[], edges: CanvasEdge[], revision: number): void {
    this.current = docFromLists(nodes, edges);
    perfMark('snapshot-store-built');
    this.rev = revision;
    this.loaded = true;
    this.gaps.settle();
  }

  /** Route one change event: ignore old ones, apply the next, buffer gaps. */
  receive(ev: ChangeEvent): void {
    if (typeof ev.revision !== 'number') return;
    if (this.rev === null) {
      this.gaps.hold(ev);
      return;
    }
    if (ev.revision <= this.rev) {
      this.hooks.committed(ev);
      return;
    }
    if (ev.revision === this.rev + 1) {
      this.apply(ev);
      return;
    }
    this.hooks.committed(ev);
    this.gaps.hold(ev);
  }

  /** Apply the held events that have become next, and forget the held ones the document has. */
  drain(): void {
    if (this.rev === null) return;
    this.gaps.dropUpTo(this.rev);
    let next = this.gaps.takeNext(this.rev);
    while (next) {
      this.apply(next);
      next = this.gaps.takeNext(this.rev);
    }
  }

  /** A resync: stop applying changes on top of the current document until the next snapshot. */
  forgetRevision(): void {
    this.rev = null;
    this.gaps.clear();
    this.gaps.settle();
  }

  private apply(ev: ChangeEvent) {
    const effects: ChangeSideEffects = {};
    this.current = applyChanges(this.current, ev.changes ?? [], effects);
    this.rev = ev.revision;
    this.hooks.committed(ev);
    this.hooks.sideEffects(effects);
  }
}
