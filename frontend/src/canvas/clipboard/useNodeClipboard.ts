// Ctrl/Cmd+C and Ctrl/Cmd+V on the canvas (not while typing): the selected
// nodes go onto the system clipboard (our JSON plus plain text for other
// apps), and a paste creates them again, with their edges, on this or another
// canvas. A copy of this tab is kept too, for browsers that hide the clipboard.
import { useEffect, type Dispatch, type SetStateAction } from 'react';
import type { Role } from '../../api/types';
import { toast } from '../../lib/toast';
import { newEntityId, type SyncEngine } from '../../sync/engine';
import type { Selection } from '../context';
import { isEditableTarget } from '../flowNodes';
import { CLIPBOARD_MIME, MAX_PASTE_NODES, copySelection, parsePayload, payloadText, planPaste, type ClipboardPayload } from './nodeClipboard';

let lastCopy: ClipboardPayload | null = null;

interface Options {
  engine: SyncEngine;
  readOnly: boolean;
  role: Role | null;
  selection: Selection;
  setSelection: Dispatch<SetStateAction<Selection>>;
  /** where a paste goes: the viewport centre, in canvas coordinates */
  pastePoint(): { x: number; y: number } | null;
  measure(id: string): { width?: number; height?: number } | undefined;
}

const ignored = (t: EventTarget | null) => isEditableTarget(t) || !!(t as HTMLElement | null)?.closest?.('.dialog, .popover, .chat-panel');

export function useNodeClipboard({ engine, readOnly, role, selection, setSelection, pastePoint, measure }: Options) {
  useEffect(() => {
    const onCopy = (e: ClipboardEvent) => {
      if (ignored(e.target) || selection.nodes.size === 0 || window.getSelection()?.toString()) return;
      const payload = copySelection(engine.getSnapshot().doc, selection.nodes);
      if (!payload) return;
      lastCopy = payload;
      e.clipboardData?.setData(CLIPBOARD_MIME, JSON.stringify(payload));
      e.clipboardData?.setData('text/plain', payloadText(payload));
      e.preventDefault();
      const n = payload.nodes.length;
      toast.info(n === 1 ? 'Copied 1 node.' : `Copied ${n} nodes${payload.edges.length ? ` and ${payload.edges.length} links` : ''}.`, 'Copied');
    };
    const onPaste = (e: ClipboardEvent) => {
      if (ignored(e.target) || readOnly) return;
      const payload = parsePayload(e.clipboardData?.getData(CLIPBOARD_MIME)) ?? (e.clipboardData?.getData('text/plain') ? null : lastCopy);
      if (!payload) return;
      e.preventDefault();
      if (payload.nodes.length > MAX_PASTE_NODES) {
        toast.error(`Paste at most ${MAX_PASTE_NODES} nodes at a time (you copied ${payload.nodes.length}).`, 'Too many nodes');
        return;
      }
      const point = pastePoint() ?? { x: 0, y: 0 };
      const plan = planPaste(payload, engine.getSnapshot().doc, point, role, newEntityId, measure);
      engine.submit(plan.ops.length === 1 ? plan.ops[0] : { type: 'batch', ops: plan.ops });
      setSelection({ nodes: new Set(plan.nodeIds), edges: new Set() });
      if (plan.lowered) {
        toast.info(`${plan.lowered} pasted node(s) were marked less sensitive: your role here may not set their original level.`, 'Sensitivity lowered');
      }
    };
    document.addEventListener('copy', onCopy);
    document.addEventListener('paste', onPaste);
    return () => {
      document.removeEventListener('copy', onCopy);
      document.removeEventListener('paste', onPaste);
    };
  }, [engine, readOnly, role, selection, setSelection, pastePoint, measure]);
}
