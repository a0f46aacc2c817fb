// React Flow edges from the document (and the agent's ghost proposals). An
// edge whose document entry, pending and selected state did not change keeps
// its object (and its `data`), so a document change re-renders only the edges
// it touched (FloatingEdge is memoized on its props).
import { useMemo, useRef } from 'react';
import { MarkerType } from '@xyflow/react';
import type { Doc } from '../sync/apply';
import type { GhostEdgeData } from '../agent/proposals';
import type { RelEdge } from './FloatingEdge';
import { relationColor } from './kinds';

const marker = (relation: string) => ({ type: MarkerType.ArrowClosed, color: relationColor(relation), width: 16, height: 16 });

export function buildEdges(
  prev: ReadonlyMap<string, RelEdge>,
  doc: Doc,
  pendingIds: ReadonlySet<string>,
  selectedEdges: ReadonlySet<string>,
  ghostEdges: readonly GhostEdgeData[],
  onLabelClick: (id: string, clientX: number, clientY: number) => void,
  onGhostClick: (proposalId: number) => void,
): RelEdge[] {
  const out: RelEdge[] = [];
  for (const e of doc.edges.values()) {
    if (!doc.nodes.has(e.source) || !doc.nodes.has(e.target)) continue;
    const pending = pendingIds.has(e.id);
    const selected = selectedEdges.has(e.id);
    const p = prev.get(e.id);
    if (p && p.data?.edge === e && p.data.pending === pending && !!p.selected === selected && p.data.onLabelClick === onLabelClick) {
      out.push(p);
      continue;
    }
    out.push({
      id: e.id,
      source: e.source,
      target: e.target,
      type: 'floating',
      data: { edge: e, pending, onLabelClick },
      selected,
      markerEnd: p && p.data?.edge.relation === e.relation ? p.markerEnd : marker(e.relation),
    });
  }
  for (const g of ghostEdges) {
    const p = prev.get(g.edge.id);
    if (p && p.data?.edge === g.edge && p.data.ghostProposalId === g.proposal.id && p.data.onGhostClick === onGhostClick) {
      out.push(p);
      continue;
    }
    out.push({
      id: g.edge.id,
      source: g.edge.source,
      target: g.edge.target,
      type: 'floating',
      data: { edge: g.edge, pending: false, ghostProposalId: g.proposal.id, onGhostClick },
      selectable: false,
      focusable: false,
      markerEnd: marker(g.edge.relation),
    });
  }
  return out;
}

export function useFlowEdges(
  doc: Doc,
  pendingIds: ReadonlySet<string>,
  selectedEdges: ReadonlySet<string>,
  ghostEdges: readonly GhostEdgeData[],
  onLabelClick: (id: string, clientX: number, clientY: number) => void,
  onGhostClick: (proposalId: number) => void,
): RelEdge[] {
  const prev = useRef<ReadonlyMap<string, RelEdge>>(new Map());
  return useMemo<RelEdge[]>(() => {
    const edges = buildEdges(prev.current, doc, pendingIds, selectedEdges, ghostEdges, onLabelClick, onGhostClick);
    prev.current = new Map(edges.map((e) => [e.id, e]));
    return edges;
  }, [doc, pendingIds, selectedEdges, onLabelClick, ghostEdges, onGhostClick]);
}
