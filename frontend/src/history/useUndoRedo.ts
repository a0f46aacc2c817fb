// Undo/redo of my own edits on this canvas through the server
// (POST …/undo/, …/redo/): inverse operations through the write path. Parts
// someone else changed since are skipped by the server and reported here.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, errorMessage } from '../api/client';
import type { UndoResult } from '../api/types';
import { toast } from '../lib/toast';
import type { SyncEngine } from '../sync/engine';
import { fieldLabel } from '../components/DiffRows';

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

/** A short human summary of an undo/redo result, with what was skipped. */
export function summarizeUndo(res: UndoResult): { title: string; message: string; kind: 'success' | 'info' } {
  const verb = res.kind === 'undo' ? 'Undid' : 'Redid';
  const applied = res.applied.length;
  if (res.skipped.length === 0) {
    return { kind: 'success', title: res.kind === 'undo' ? 'Undone' : 'Redone', message: `${verb} your change from revision ${res.inverted_revision}.` };
  }
  const parts = res.skipped.slice(0, 3).map((s) => {
    const what = s.field ? `${fieldLabel(s.field).toLowerCase()} of “${s.summary || s.id.slice(0, 8)}”` : `“${s.summary || s.id.slice(0, 8)}”`;
    const who = s.by ? `${s.by.label} changed it since${s.revision ? ` (rev ${s.revision})` : ''}` : s.reason;
    return `${what}: ${who}`;
  });
  const more = res.skipped.length > 3 ? ` and ${res.skipped.length - 3} more` : '';
  const head = applied > 0 ? `${verb} part of revision ${res.inverted_revision}. Skipped ` : `Nothing ${res.kind === 'undo' ? 'undone' : 'redone'} for revision ${res.inverted_revision}: skipped `;
  return { kind: 'info', title: applied > 0 ? `${res.kind === 'undo' ? 'Undone' : 'Redone'} in part` : 'Skipped', message: `${head}${parts.join('; ')}${more}.` };
}

export function useUndoRedo(canvasId: string, engine: SyncEngine, revision: number | null, enabled: boolean): UndoRedo {
  const [canUndo, setCanUndo] = useState(false);
  const [canRedo, setCanRedo] = useState(false);
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);

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

  const run = useCallback(
    async (kind: 'undo' | 'redo') => {
      if (!enabled || busyRef.current) return;
      busyRef.current = true;
      setBusy(true);
      try {
        await settled(engine);
        const res = kind === 'undo' ? await api.undo(canvasId) : await api.redo(canvasId);
        setCanUndo(!!res.can_undo);
        setCanRedo(!!res.can_redo);
        const s = summarizeUndo(res);
        if (s.kind === 'success') toast.success(s.message, s.title);
        else toast.info(s.message, s.title);
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) {
          toast.info(kind === 'undo' ? 'You have no recent edits left to undo on this canvas.' : 'Nothing to redo.', kind === 'undo' ? 'Nothing to undo' : 'Nothing to redo');
          if (kind === 'undo') setCanUndo(false);
          else setCanRedo(false);
        } else toast.error(errorMessage(err), kind === 'undo' ? 'Undo failed' : 'Redo failed');
      } finally {
        busyRef.current = false;
        setBusy(false);
      }
    },
    [canvasId, engine, enabled],
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
