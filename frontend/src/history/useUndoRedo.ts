// Undo/redo of my own edits on this canvas through the server
// (POST …/undo/, …/redo/): inverse operations through the write path. Parts
// someone else changed since are skipped by the server and reported here.
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import i18n from 'i18next';
import { api, ApiError, errorMessage } from '../api/client';
import type { UndoResult } from '../api/types';
import { toast } from '../lib/toast';
import type { SyncEngine } from '../sync/engine';
import { fieldLabel } from '../components/DiffRows';
import { UndoQueue, type UndoOutcome } from './undoQueue';

export interface UndoRedo {
  canUndo: boolean;
  canRedo: boolean;
  busy: boolean;
  undo(): Promise<void>;
  redo(): Promise<void>;
}

function isEditableTarget(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable;
}

/** Wait (briefly) until my queued edits are committed, so undo sees them. */
function settled(engine: SyncEngine, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve) => {
    if (engine.getSnapshot().pending.length === 0) return resolve();
    const started = Date.now();
    const off = engine.subscribe(() => {
      if (engine.getSnapshot().pending.length === 0 || Date.now() - started > timeoutMs) {
        off();
        clearTimeout(timer);
        resolve();
      }
    });
    const timer = setTimeout(() => {
      off();
      resolve();
    }, timeoutMs);
  });
}

const t = (key: string, options?: Record<string, unknown>) => i18n.t(`history:undo.${key}`, options);

/** A short human summary of an undo/redo result, with what was skipped. */
export function summarizeUndo(res: UndoResult): { title: string; message: string; kind: 'success' | 'info' } {
  const undo = res.kind === 'undo';
  const revision = res.inverted_revision;
  const applied = res.applied.length;
  if (res.skipped.length === 0) {
    return { kind: 'success', title: undo ? t('undone') : t('redone'), message: undo ? t('undidChange', { revision }) : t('redidChange', { revision }) };
  }
  const parts = res.skipped.slice(0, 3).map((s) => {
    const summary = s.summary || s.id.slice(0, 8);
    const what = s.field ? t('skippedWhat', { field: fieldLabel(s.field).toLowerCase(), summary }) : t('skippedNode', { summary });
    const who = s.by ? (s.revision ? t('changedSinceRev', { name: s.by.label, revision: s.revision }) : t('changedSince', { name: s.by.label })) : s.reason;
    return t('skippedItem', { what, who });
  });
  const more = res.skipped.length > 3 ? t('more', { count: res.skipped.length - 3 }) : '';
  const args = { revision, items: parts.join(t('itemSeparator')), more };
  if (applied > 0) return { kind: 'info', title: undo ? t('undonePart') : t('redonePart'), message: undo ? t('undidPart', args) : t('redidPart', args) };
  return { kind: 'info', title: t('skipped'), message: undo ? t('nothingUndone', args) : t('nothingRedone', args) };
}

/** Toasts for a burst of undo/redo presses: one line per press when few, a count when many. */
function reportOutcomes(
  outcomes: UndoOutcome<UndoResult>[],
  set: { setCanUndo(v: boolean): void; setCanRedo(v: boolean): void },
): void {
  const done = outcomes.filter((o) => o.ok) as Extract<UndoOutcome<UndoResult>, { ok: true }>[];
  const failed = outcomes.filter((o) => !o.ok) as Extract<UndoOutcome<UndoResult>, { ok: false }>[];
  const partial = done.map((o) => summarizeUndo(o.result)).filter((s) => s.kind === 'info');
  if (done.length > 2) {
    const undos = done.filter((o) => o.kind === 'undo').length;
    const redos = done.length - undos;
    const text = undos && redos ? t('burstBoth', { undos, redos }) : undos ? t('burstUndo', { count: undos }) : t('burstRedo', { count: redos });
    toast.success(text, t('done'));
  } else {
    for (const o of done) {
      const s = summarizeUndo(o.result);
      if (s.kind === 'success') toast.success(s.message, s.title);
    }
  }
  for (const s of partial) toast.info(s.message, s.title);
  for (const f of failed) {
    const undo = f.kind === 'undo';
    if (f.error instanceof ApiError && f.error.status === 409) {
      toast.info(undo ? t('nothingLeftUndo') : t('nothingLeftRedo'), undo ? t('nothingToUndo') : t('nothingToRedo'));
      if (undo) set.setCanUndo(false);
      else set.setCanRedo(false);
    } else toast.error(errorMessage(f.error), undo ? t('undoFailed') : t('redoFailed'));
  }
}

export function useUndoRedo(canvasId: string, engine: SyncEngine, revision: number | null, enabled: boolean): UndoRedo {
  const [canUndo, setCanUndo] = useState(false);
  const [canRedo, setCanRedo] = useState(false);

  const refresh = useCallback(async () => {
    if (!enabled) return;
    try {
      const s = await api.undoStatus(canvasId);
      setCanUndo(!!s.can_undo);
      setCanRedo(!!s.can_redo);
    } catch {
      /* keep the last known state */
    }
  }, [canvasId, enabled]);

  // Refresh after revisions settle (my edits and others' both change the stacks).
  useEffect(() => {
    if (!enabled) {
      setCanUndo(false);
      setCanRedo(false);
      return;
    }
    const t = setTimeout(() => void refresh(), 300);
    return () => clearTimeout(t);
  }, [refresh, revision, enabled]);

  const isNothingLeft = (err: unknown) => err instanceof ApiError && err.status === 409;

  // Presses queue up and are applied in order, each after the previous answer (see undoQueue.ts).
  const queue = useMemo(
    () =>
      new UndoQueue<UndoResult>({
        perform: async (kind) => {
          await settled(engine);
          return kind === 'undo' ? api.undo(canvasId) : api.redo(canvasId);
        },
        isExhausted: isNothingLeft,
        burstGapMs: 400,
        onDrained: (outcomes) => {
          const last = [...outcomes].reverse().find((o) => o.ok);
          if (last && last.ok) {
            setCanUndo(!!last.result.can_undo);
            setCanRedo(!!last.result.can_redo);
          }
          reportOutcomes(outcomes, { setCanUndo, setCanRedo });
        },
      }),
    [canvasId, engine],
  );
  const busy = useSyncExternalStore(queue.subscribe.bind(queue), () => queue.size > 0);

  const run = useCallback(
    async (kind: 'undo' | 'redo') => {
      if (enabled) queue.push(kind);
    },
    [enabled, queue],
  );

  const undo = useCallback(() => run('undo'), [run]);
  const redo = useCallback(() => run('redo'), [run]);

  // Ctrl/Cmd+Z, Ctrl/Cmd+Shift+Z, Ctrl+Y — not while typing (text fields keep their own undo).
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      if (isEditableTarget(e.target) || (e.target as HTMLElement | null)?.closest?.('.dialog')) return;
      const k = e.key.toLowerCase();
      if (k === 'z') {
        e.preventDefault();
        void run(e.shiftKey ? 'redo' : 'undo');
      } else if (k === 'y' && !e.metaKey) {
        e.preventDefault();
        void run('redo');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled, run]);

  return { canUndo, canRedo, busy, undo, redo };
}
