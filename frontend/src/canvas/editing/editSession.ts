// Edits that must not be lost: conflicts waiting for a choice, rejected texts to
// put back into an editor, and the drafts (a new note, a supersede) that exist
// only on this screen until they are saved. One store per open canvas.
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { CanvasNode, Op } from '../../api/types';
import type { Notice } from '../../sync/engine';
import i18n from 'i18next';

export interface ConflictItem {
  key: number;
  nodeId: string;
  /** the text this person tried to save */
  mine: string;
  /** the node as the server has it now */
  current: CanvasNode;
}

/** Text to reopen an editor with, and the base it was written on. */
export interface RestoredText {
  text: string;
  /** server version the text was written on (null: no conflict check) */
  baseVersion: number | null;
  /** content at that base (to tell whether the node changed underneath) */
  baseContent: string;
  /** why it came back */
  message: string | null;
}

export interface NoteDraft {
  /** flow position of the new card's top-left corner */
  x: number;
  y: number;
  text: string;
  message: string | null;
}

export interface EditSessionState {
  conflicts: readonly ConflictItem[];
  noteDraft: NoteDraft | null;
  /** node being superseded in the draft panel */
  supersedeOf: string | null;
}

/** The text an op would have written into a node, and where. */
export function textOfOp(op: Op | undefined): { kind: 'update'; nodeId: string; text: string } | { kind: 'create'; x: number; y: number; text: string } | null {
  if (!op) return null;
  if (op.type === 'node.update' && typeof op.fields.content === 'string') return { kind: 'update', nodeId: op.id, text: op.fields.content };
  if ((op.type === 'node.create' || op.type === 'node.supersede') && op.node.content) return { kind: 'create', x: op.node.x, y: op.node.y, text: op.node.content };
  if (op.type === 'batch') {
    // A split note sends one op per part; a batch is only inspected for its first text.
    for (const inner of op.ops) {
      const found = textOfOp(inner);
      if (found) return found;
    }
  }
  return null;
}

export class EditSession {
  private state: EditSessionState = { conflicts: [], noteDraft: null, supersedeOf: null };
  private restored = new Map<string, RestoredText>();
  private listeners = new Set<() => void>();
  private seq = 0;

  /** Called to open the inline editor on a node (CanvasPage wires it to startEditing). */
  constructor(private openEditor: (nodeId: string) => void = () => {}, private nodeExists: (id: string) => boolean = () => true) {}

  subscribe = (l: () => void) => {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  };
  getSnapshot = () => this.state;

  private set(patch: Partial<EditSessionState>) {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }

  /**
   * A reject from the server. Returns true when the text was kept (a conflict to
   * decide, or an editor reopened with it), so the caller can word its toast.
   */
  onNotice(n: Notice): boolean {
    if (n.kind !== 'reject' && n.kind !== 'too-large') return false;
    const found = textOfOp(n.op);
    if (!found) return false;
    if (found.kind === 'update' && n.code === 'CONFLICT' && n.current) {
      this.addConflict(found.nodeId, found.text, n.current);
      return true;
    }
    const message = n.kind === 'too-large' ? n.message : i18n.t('sync:notSaved', { message: n.message });
    if (found.kind === 'update') {
      if (!this.nodeExists(found.nodeId)) {
        this.openNoteDraft({ x: 0, y: 0, text: found.text, message: i18n.t('sync:noteGone', { message }) });
        return true;
      }
      this.restore(found.nodeId, { text: found.text, baseVersion: null, baseContent: found.text, message });
      return true;
    }
    this.openNoteDraft({ x: found.x, y: found.y, text: found.text, message });
    return true;
  }

  addConflict(nodeId: string, mine: string, current: CanvasNode) {
    const others = this.state.conflicts.filter((c) => c.nodeId !== nodeId);
    this.set({ conflicts: [...others, { key: ++this.seq, nodeId, mine, current }] });
  }

  resolveConflict(key: number) {
    this.set({ conflicts: this.state.conflicts.filter((c) => c.key !== key) });
  }

  /** Reopen the inline editor on `nodeId` holding `text`. */
  restore(nodeId: string, restored: RestoredText) {
    this.restored.set(nodeId, restored);
    this.openEditor(nodeId);
  }

  /** The text waiting for the editor that is opening on `nodeId` (taken once). */
  takeRestored(nodeId: string): RestoredText | undefined {
    const r = this.restored.get(nodeId);
    this.restored.delete(nodeId);
    return r;
  }

  openNoteDraft(draft: NoteDraft) {
    this.set({ noteDraft: draft });
  }

  closeNoteDraft() {
    if (this.state.noteDraft) this.set({ noteDraft: null });
  }

  openSupersede(nodeId: string) {
    this.set({ supersedeOf: nodeId });
  }

  closeSupersede() {
    if (this.state.supersedeOf) this.set({ supersedeOf: null });
  }
}

export const EditSessionContext = createContext<EditSession>(new EditSession());

export function useEditSession(): EditSession {
  return useContext(EditSessionContext);
}

export function useEditSessionState(): EditSessionState {
  const s = useEditSession();
  return useSyncExternalStore(s.subscribe, s.getSnapshot, s.getSnapshot);
}
