// Level of detail: below LOD_ZOOM a card's text is unreadable anyway, so each
// card is drawn as a plain coloured block (plus the handles React Flow needs
// for edges) and edges lose their labels. 2,000 full cards with text, badges
// and labels are what made panning slow.
import { createContext, memo, useContext } from 'react';
import { BaseEdge, Handle, Position, useInternalNode, useStore, type EdgeProps, type NodeProps, type ReactFlowState } from '@xyflow/react';
import { NodeCard, type CardNode } from '../NodeCard';
import { FloatingEdge, type RelEdge } from '../FloatingEdge';
import { kindMeta, relationColor, weightStyle } from '../kinds';
import { CULL_MIN_NODES } from './culling';

export const LOD_ZOOM = 0.45;
/** above this many nodes the React Flow mini map (one subscribed component per node) costs seconds on open;
 * it would also show only the culled nodes (culling.ts) */
export const MINIMAP_MAX_NODES = CULL_MIN_NODES;
/** canvases bigger than this (and not culled) draw blocks in React Flow's first measuring pass (all nodes mount once) */
export const LOD_FIRST_PASS_NODES = 400;
/** zoomed out past LOD_ZOOM, canvases bigger than this draw their nodes on one <canvas> (LodLayer.tsx);
 * smaller ones keep DOM blocks, which can be dragged at once */
export const LOD_LAYER_MIN_NODES = 400;
const BLOCK_H = 90;
const SIDES = [Position.Top, Position.Right, Position.Bottom, Position.Left];
const SIDE_IDS = ['top', 'right', 'bottom', 'left'];

const lowDetail = (s: ReactFlowState) => LOD_ZOOM > s.transform[2];

/** Read once per canvas (CanvasView) and handed down: one store subscription instead of one per card and edge. */
export function useLowDetailFlag(): boolean {
  return useStore(lowDetail);
}
export const LowDetailContext = createContext(false);
const useLowDetail = () => useContext(LowDetailContext);

function BlockCard({ id, data, selected }: NodeProps<CardNode>) {
  const { node } = data;
  // keep the last measured height so edges and layout do not jump when the detail changes
  const height = useStore((s) => s.nodeLookup.get(id)?.measured?.height) ?? BLOCK_H;
  const meta = kindMeta(node.kind);
  const cls = ['node-block', selected && 'selected', node.pinned && 'pinned', (node.archived || node.superseded_by) && 'faded'].filter(Boolean).join(' ');
  return (
    <div className={cls} style={{ width: weightStyle(node.weight).width, height, background: meta.color }} data-testid={`node-${id}`} data-lod="block">
      {SIDES.map((p, i) => (
        <Handle key={SIDE_IDS[i]} id={SIDE_IDS[i]} type="source" position={p} className="node-handle" isConnectable={false} />
      ))}
    </div>
  );
}

function LodCardImpl(props: NodeProps<CardNode>) {
  return useLowDetail() ? <BlockCard {...props} /> : <NodeCard {...props} />;
}
export const LodCard = memo(LodCardImpl);

function StraightEdge({ id, source, target, data }: EdgeProps<RelEdge>) {
  const s = useInternalNode(source);
  const t = useInternalNode(target);
  if (!s || !t || !data) return null;
  const c = (n: typeof s) => ({
    x: n.internals.positionAbsolute.x + (n.measured.width ?? 200) / 2,
    y: n.internals.positionAbsolute.y + (n.measured.height ?? BLOCK_H) / 2,
  });
  const a = c(s);
  const b = c(t);
  const ghost = data.ghostProposalId !== undefined;
  return <BaseEdge id={id} path={`M${a.x},${a.y}L${b.x},${b.y}`} style={{ stroke: ghost ? '#7c3aed' : relationColor(data.edge.relation), strokeWidth: 2, opacity: 0.55 }} />;
}

function LodEdgeImpl(props: EdgeProps<RelEdge>) {
  return useLowDetail() ? <StraightEdge {...props} /> : <FloatingEdge {...props} />;
}
export const LodEdge = memo(LodEdgeImpl);
