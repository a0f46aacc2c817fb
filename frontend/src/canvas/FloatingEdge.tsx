import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import {
  BaseEdge,
  EdgeLabelRenderer,
  getBezierPath,
  Position,
  useInternalNode,
  type Edge,
  type EdgeProps,
  type InternalNode,
} from '@xyflow/react';
import type { CanvasEdge } from '../api/types';
import { relationLabel } from '../api/types';
import { relationColor } from './kinds';

export interface RelEdgeData extends Record<string, unknown> {
  edge: CanvasEdge;
  pending: boolean;
  onLabelClick?: (id: string, x: number, y: number) => void;
  /** drawn for a pending agent proposal (not a real edge) */
  ghostProposalId?: number;
  onGhostClick?: (proposalId: number) => void;
}
export type RelEdge = Edge<RelEdgeData, 'floating'>;

type Box = { x: number; y: number; w: number; h: number };

function box(n: InternalNode): Box {
  return {
    x: n.internals.positionAbsolute.x,
    y: n.internals.positionAbsolute.y,
    w: n.measured.width ?? 200,
    h: n.measured.height ?? 80,
  };
}

/** Where the line from b's centre to a's centre crosses a's border. */
function intersection(a: Box, b: Box) {
  const w = a.w / 2;
  const h = a.h / 2;
  const x2 = a.x + w;
  const y2 = a.y + h;
  const x1 = b.x + b.w / 2;
  const y1 = b.y + b.h / 2;
  const xx1 = (x1 - x2) / (2 * w) - (y1 - y2) / (2 * h);
  const yy1 = (x1 - x2) / (2 * w) + (y1 - y2) / (2 * h);
  const denom = Math.abs(xx1) + Math.abs(yy1) || 1;
  const a2 = 1 / denom;
  const xx3 = a2 * xx1;
  const yy3 = a2 * yy1;
  return { x: w * (xx3 + yy3) + x2, y: h * (-xx3 + yy3) + y2 };
}

function side(b: Box, p: { x: number; y: number }): Position {
  const px = Math.round(p.x);
  const py = Math.round(p.y);
  if (px <= Math.round(b.x) + 1) return Position.Left;
  if (px >= Math.round(b.x + b.w) - 1) return Position.Right;
  if (py <= Math.round(b.y) + 1) return Position.Top;
  return Position.Bottom;
}

function FloatingEdgeImpl({ id, source, target, data, selected, markerEnd, style }: EdgeProps<RelEdge>) {
  const s = useInternalNode(source);
  const t = useInternalNode(target);
  const { t: tr } = useTranslation('editing');
  if (!s || !t || !data) return null;
  const sb = box(s);
  const tb = box(t);
  const sp = intersection(sb, tb);
  const tp = intersection(tb, sb);
  const [path, labelX, labelY] = getBezierPath({
    sourceX: sp.x,
    sourceY: sp.y,
    sourcePosition: side(sb, sp),
    targetX: tp.x,
    targetY: tp.y,
    targetPosition: side(tb, tp),
  });
  const { edge, pending, ghostProposalId } = data;
  const ghost = ghostProposalId !== undefined;
  const color = ghost ? '#7c3aed' : relationColor(edge.relation);
  const dashed = edge.relation === 'conflicts_with' || edge.relation === 'supersedes';
  return (
    <>
      <BaseEdge
        id={id}
        path={path}
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
      <EdgeLabelRenderer>
        <button
          type="button"
          className={`edge-label nodrag nopan${selected ? ' selected' : ''}${ghost ? ' ghost' : ''}`}
          style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)`, color, borderColor: color }}
          data-testid={ghost ? `ghost-edge-${ghostProposalId}` : `edge-label-${id}`}
          data-relation={edge.relation}
          title={ghost ? tr('edge.proposedHint') : undefined}
          onClick={(e) => {
            e.stopPropagation();
            if (ghost) data.onGhostClick?.(ghostProposalId!);
            else data.onLabelClick?.(id, e.clientX, e.clientY);
          }}
        >
          {ghost && tr('edge.proposedPrefix')}
          {relationLabel(edge.relation)}
          {edge.label && <span className="edge-label-text"> · {edge.label}</span>}
        </button>
      </EdgeLabelRenderer>
    </>
  );
}

export const FloatingEdge = memo(FloatingEdgeImpl);
