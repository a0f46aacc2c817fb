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
import i18n from 'i18next';

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
      const links = payload.edges.length;
      toast.info(links ? i18n.t('canvas:clipboard.copiedWithLinks', { count: n, links }) : i18n.t('canvas:clipboard.copied', { count: n }), i18n.t('canvas:clipboard.copiedTitle'));
    };
    const onPaste = (e: ClipboardEvent) => {
      if (ignored(e.target) || readOnly) return;
      const payload = parsePayload(e.clipboardData?.getData(CLIPBOARD_MIME)) ?? (e.clipboardData?.getData('text/plain') ? null : lastCopy);
      if (!payload) return;
      e.preventDefault();
      if (payload.nodes.length > MAX_PASTE_NODES) {
        toast.error(i18n.t('canvas:clipboard.tooMany', { max: MAX_PASTE_NODES, count: payload.nodes.length }), i18n.t('canvas:clipboard.tooManyTitle'));
        return;
      }
      const point = pastePoint() ?? { x: 0, y: 0 };
      const plan = planPaste(payload, engine.getSnapshot().doc, point, role, newEntityId, measure);
      engine.submit(plan.ops.length === 1 ? plan.ops[0] : { type: 'batch', ops: plan.ops });
      setSelection({ nodes: new Set(plan.nodeIds), edges: new Set() });
      if (plan.lowered) {
        toast.info(i18n.t('canvas:clipboard.lowered', { count: plan.lowered }), i18n.t('canvas:clipboard.loweredTitle'));
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
