import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import {
  BaseEdge,
  EdgeLabelRenderer,
  useInternalNode,
  useStoreApi,
  type Edge,
  type EdgeProps,
  type InternalNode,
  type ReactFlowState,
} from '@xyflow/react';
import type { CanvasEdge } from '../api/types';
import { relationLabel } from '../api/types';
import { relationColor } from './kinds';
import { boxesOverlap, curveBounds, edgeCurve, placeLabel, type Box } from './edgeGeometry';
import { labelSizes } from './edgeLabelSize';

export interface RelEdgeData extends Record<string, unknown> {
  edge: CanvasEdge;
  pending: boolean;
  onLabelClick?: (id: string, x: number, y: number) => void;
  /** drawn for a pending agent proposal (not a real edge) */
  ghostProposalId?: number;
  onGhostClick?: (proposalId: number) => void;
}
export type RelEdge = Edge<RelEdgeData, 'floating'>;

function box(n: InternalNode): Box {
  return {
    x: n.internals.positionAbsolute.x,
    y: n.internals.positionAbsolute.y,
    w: n.measured.width ?? 200,
    h: n.measured.height ?? 80,
  };
}

/** the cards a label on this edge could land on: both ends, and any other mounted card near the curve */
function cardsNear(nodes: ReactFlowState['nodeLookup'], sourceId: string, targetId: string, sb: Box, tb: Box): Box[] {
  const cards = [sb, tb];
  const area = curveBounds(sb, tb, 120);
  for (const n of nodes.values()) {
    if (n.id === sourceId || n.id === targetId || n.hidden) continue;
    const b = box(n);
    if (boxesOverlap(b, area)) cards.push(b);
  }
  return cards;
}

function FloatingEdgeImpl({ id, source, target, data, selected, markerEnd, style }: EdgeProps<RelEdge>) {
  const s = useInternalNode(source);
  const t = useInternalNode(target);
  const store = useStoreApi();
  const { t: tr } = useTranslation('editing');
  if (!s || !t || !data) return null;
  const sb = box(s);
  const tb = box(t);
  const curve = edgeCurve(sb, tb);
  const { edge, pending, ghostProposalId } = data;
  const ghost = ghostProposalId !== undefined;
  const color = ghost ? '#7c3aed' : relationColor(edge.relation);
  const dashed = edge.relation === 'conflicts_with' || edge.relation === 'supersedes';
  const relation = relationLabel(edge.relation);
  const full = `${ghost ? tr('edge.proposedPrefix') : ''}${relation}${edge.label ? ` · ${edge.label}` : ''}`;
  // Read, not subscribed: the label is placed again whenever either end moves or changes size.
  const spot = placeLabel(curve, labelSizes(full, relation), cardsNear(store.getState().nodeLookup, source, target, sb, tb));
  return (
    <>
      <BaseEdge
        id={id}
        path={curve.path}
        markerEnd={markerEnd}
        interactionWidth={18}
        style={{
          ...style,
          stroke: color,
          strokeWidth: selected ? 2.5 : 1.6,
          strokeDasharray: ghost ? '5 5' : dashed ? '6 4' : pending ? '2 3' : undefined,
          opacity: ghost ? 0.6 : pending ? 0.7 : 1,
        }}
      />
      {spot && (
        <EdgeLabelRenderer>
          <button
            type="button"
            className={`edge-label nodrag nopan level-${spot.level}${selected ? ' selected' : ''}${ghost ? ' ghost' : ''}`}
            style={{ transform: `translate(-50%, -50%) translate(${spot.x}px, ${spot.y}px)`, color, borderColor: color }}
            data-testid={ghost ? `ghost-edge-${ghostProposalId}` : `edge-label-${id}`}
            data-relation={edge.relation}
            data-level={spot.level}
            title={ghost ? `${full} — ${tr('edge.proposedHint')}` : spot.level === 'full' ? undefined : full}
            aria-label={spot.level === 'full' ? undefined : full}
            onClick={(e) => {
              e.stopPropagation();
              if (ghost) data.onGhostClick?.(ghostProposalId!);
              else data.onLabelClick?.(id, e.clientX, e.clientY);
            }}
          >
            {spot.level === 'full' && (
              <>
                {ghost && tr('edge.proposedPrefix')}
                {relation}
                {edge.label && <span className="edge-label-text"> · {edge.label}</span>}
              </>
            )}
            {spot.level === 'compact' && relation}
          </button>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

export const FloatingEdge = memo(FloatingEdgeImpl);
