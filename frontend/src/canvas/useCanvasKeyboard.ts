// Canvas-wide keys (not while typing in a field or a dialog): Delete, Enter to
// edit, Ctrl/Cmd+A to select every card, Escape to clear the selection.
import { useEffect, type Dispatch, type SetStateAction } from 'react';
import type { SyncEngine } from '../sync/engine';
import type { Selection } from './context';
import { isEditableTarget } from './flowNodes';

interface Options {
  engine: SyncEngine;
  readOnly: boolean;
  selection: Selection;
  setSelection: Dispatch<SetStateAction<Selection>>;
  editingId: string | null;
  startEditing(id: string | null): void;
  onDeleteSelection(): void;
}

export function useCanvasKeyboard({ engine, readOnly, selection, setSelection, editingId, startEditing, onDeleteSelection }: Options) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isEditableTarget(e.target) || (e.target as HTMLElement | null)?.closest?.('.dialog, .popover')) return;
      if (e.key === 'Delete' || e.key === 'Backspace') {
        if (readOnly) return;
        e.preventDefault();
        onDeleteSelection();
      } else if (e.key === 'Enter' && !readOnly && selection.nodes.size === 1 && !editingId && !(e.target as HTMLElement | null)?.closest?.('button, a')) {
        e.preventDefault();
        startEditing([...selection.nodes][0]);
      } else if ((e.key === 'a' || e.key === 'A') && (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey) {
        // Ctrl/Cmd+A: every card (not the agent's ghost proposals).
        e.preventDefault();
        setSelection({ nodes: new Set(engine.getSnapshot().doc.nodes.keys()), edges: new Set() });
      } else if (e.key === 'Escape' && !editingId) {
        setSelection({ nodes: new Set(), edges: new Set() });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [readOnly, selection, editingId, onDeleteSelection, startEditing, setSelection, engine]);
}
