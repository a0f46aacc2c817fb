// React Flow edges from the document (and the agent's ghost proposals).
import { useMemo } from 'react';
import { MarkerType } from '@xyflow/react';
import type { Doc } from '../sync/apply';
import type { GhostEdgeData } from '../agent/proposals';
import type { RelEdge } from './FloatingEdge';
import { relationColor } from './kinds';

export function useFlowEdges(
  doc: Doc,
  pendingIds: ReadonlySet<string>,
  selectedEdges: ReadonlySet<string>,
  ghostEdges: readonly GhostEdgeData[],
  onLabelClick: (id: string, clientX: number, clientY: number) => void,
  onGhostClick: (proposalId: number) => void,
): RelEdge[] {
  return useMemo<RelEdge[]>(() => {
    const out: RelEdge[] = [];
    for (const e of doc.edges.values()) {
      if (!doc.nodes.has(e.source) || !doc.nodes.has(e.target)) continue;
      const color = relationColor(e.relation);
      out.push({
        id: e.id,
        source: e.source,
        target: e.target,
        type: 'floating',
        data: { edge: e, pending: pendingIds.has(e.id), onLabelClick },
        selected: selectedEdges.has(e.id),
        markerEnd: { type: MarkerType.ArrowClosed, color, width: 16, height: 16 },
      });
    }
    for (const g of ghostEdges) {
      const color = relationColor(g.edge.relation);
      out.push({
        id: g.edge.id,
        source: g.edge.source,
        target: g.edge.target,
        type: 'floating',
        data: { edge: g.edge, pending: false, ghostProposalId: g.proposal.id, onGhostClick },
        selectable: false,
        focusable: false,
        markerEnd: { type: MarkerType.ArrowClosed, color, width: 16, height: 16 },
      });
    }
    return out;
  }, [doc, pendingIds, selectedEdges, onLabelClick, ghostEdges, onGhostClick]);
}
