// React Flow nodes from the canvas document: identity kept across syncs so
// unchanged cards do not re-render; decorations from the overlay; positions
// of nodes another person is dragging right now.
import type { Doc } from '../sync/apply';
import { clamp, snippet } from '../lib/format';
import { LIMITS } from '../api/types';
import type { CardDecor, CardNode } from './NodeCard';
import { kindMeta } from './kinds';
import type { OverlayState } from './overlay';
import type { GhostFlowNode } from '../agent/GhostNode';
import i18n from 'i18next';

export type FlowNode = CardNode | GhostFlowNode;

const PLAIN_DECOR: CardDecor = Object.freeze({ rank: null, ctxReason: null, placeholder: false, excluded: null, dimmed: false, proposals: null });

/** Per-node decorations from the overlay (preview ranks, filters, proposals). */
export function decorate(overlay: OverlayState, marked: Map<string, number[]>) {
  const { preview, agentOnly } = overlay;
  return (node: { id: string; author_kind: string }): CardDecor => {
    // the common case (no preview, filter or proposal on this node) shares one object: a rebuild over
    // thousands of nodes then neither allocates nor compares field by field
    if (!preview && !agentOnly && !marked.has(node.id)) return PLAIN_DECOR;
    const inc = preview?.included.get(node.id);
    const exc = preview && !inc ? preview.excluded.get(node.id)?.reason ?? 'not_selected' : null;
    return {
      rank: inc ? inc.rank : null,
      ctxReason: inc ? inc.reason : null,
      placeholder: inc ? inc.placeholder : false,
      excluded: exc,
      dimmed: (agentOnly && node.author_kind !== 'agent') || (!!preview && !inc),
      proposals: marked.get(node.id) ?? null,
    };
  };
}

function sameDecor(a: CardDecor | undefined, b: CardDecor): boolean {
  if (a === b) return true;
  return (
    !!a &&
    a.rank === b.rank &&
    a.ctxReason === b.ctxReason &&
    a.placeholder === b.placeholder &&
    a.excluded === b.excluded &&
    a.dimmed === b.dimmed &&
    (a.proposals ?? []).join(',') === (b.proposals ?? []).join(',')
  );
}

export const round2 = (v: number) => Math.round(v * 100) / 100;
export const coord = (v: number) => round2(clamp(v, -LIMITS.coordAbsMax, LIMITS.coordAbsMax));

export function isEditableTarget(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable;
}

/** Rebuild React Flow nodes from the document, keeping identity, measurements and drag positions. */
export function buildNodes(
  prev: FlowNode[],
  doc: Doc,
  pendingIds: ReadonlySet<string>,
  selected: ReadonlySet<string>,
  readOnly: boolean,
  decor: (n: { id: string; author_kind: string }) => CardDecor,
  ghosts: GhostFlowNode['data'][],
  dragged: ReadonlyMap<string, { x: number; y: number }> = new Map(),
): FlowNode[] {
  const prevById = new Map(prev.filter((n): n is CardNode => n.type === 'card').map((n) => [n.id, n]));
  const out: FlowNode[] = [];
  // kind labels come from i18n: one lookup per kind, not per node (5,000 t() calls cost ~80 ms on open)
  const kindLabels = new Map<string, string>();
  const kindLabel = (kind: string) => {
    let label = kindLabels.get(kind);
    if (label === undefined) {
      label = kindMeta(kind).label;
      kindLabels.set(kind, label);
    }
    return label;
  };
  for (const node of doc.nodes.values()) {
    const p = prevById.get(node.id);
    const pending = pendingIds.has(node.id);
    const succ = node.superseded_by ? doc.nodes.get(node.superseded_by) : undefined;
    const successor = node.superseded_by ? (succ ? snippet(succ.content, 36) : null) : null;
    const isSelected = selected.has(node.id);
    const draggable = !readOnly;
    const d = decor(node);
    // Someone else is dragging it: show it where their pointer is (committed on their drop).
    const remote = p?.dragging ? undefined : dragged.get(node.id);
    const at = remote ?? { x: node.x, y: node.y };
    if (
      p &&
      p.data.node === node &&
      sameDecor(p.data.decor, d) &&
      p.data.pending === pending &&
      p.data.successor === successor &&
      !!p.selected === isSelected &&
      p.draggable === draggable &&
      (p.dragging || (p.position.x === at.x && p.position.y === at.y))
    ) {
      out.push(p);
      continue;
    }
    out.push({
      id: node.id,
      type: 'card',
      position: p?.dragging ? p.position : at,
      data: { node, pending, successor, decor: d },
      selected: isSelected,
      dragging: p?.dragging,
      measured: p?.measured,
      draggable,
      zIndex: node.archived || node.superseded_by ? 0 : 1,
      ariaLabel: `${kindLabel(node.kind)}: ${snippet(node.content, 60) || 'empty'}`,
    });
  }
  const prevGhosts = new Map(prev.filter((n): n is GhostFlowNode => n.type === 'ghost').map((n) => [n.id, n]));
  for (const g of ghosts) {
    const p = prevGhosts.get(g.node.id);
    if (p && p.data.proposal === g.proposal && p.data.node.x === g.node.x && p.data.node.y === g.node.y) {
      out.push(p);
      continue;
    }
    out.push({
      id: g.node.id,
      type: 'ghost',
      position: { x: g.node.x, y: g.node.y },
      data: g,
      measured: p?.measured,
      draggable: false,
      selectable: false,
      connectable: false,
      zIndex: 2,
      ariaLabel: i18n.t('editing:ghostAria', { text: snippet(g.node.content, 60) }),
    });
  }
  return out;
}

