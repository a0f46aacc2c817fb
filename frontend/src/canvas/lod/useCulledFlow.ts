// What React Flow gets on a big canvas: the nodes near the viewport (culling.ts)
// and the edges between them. Re-renders only when the snapped window changes.
import { useMemo } from 'react';
import { useStore, type ReactFlowState } from '@xyflow/react';
import type { FlowNode } from '../flowNodes';
import type { RelEdge } from '../FloatingEdge';
import { cullNodes, cullWindow, edgesBetween, neighboursOf, sameRect, type Rect } from './culling';

const NO_WINDOW: Rect = { x: 0, y: 0, width: 0, height: 0 };
const selectWindow = (s: ReactFlowState) => cullWindow(s.transform, { width: s.width, height: s.height });
const selectNothing = () => NO_WINDOW;
const NONE: never[] = [];

interface Options {
  /** cull at all (big canvas) */
  active: boolean;
  /** the opening viewport is set; until then a culled canvas mounts nothing (it would mount the wrong part) */
  ready: boolean;
  editingId: string | null;
}

export function useCulledFlow(nodes: FlowNode[], edges: RelEdge[], { active, ready, editingId }: Options) {
  const window = useStore(active ? selectWindow : selectNothing, sameRect);
  const neighbours = useMemo(() => (active ? neighboursOf(edges) : undefined), [active, edges]);
  return useMemo(() => {
    if (!active) return { nodes, edges };
    if (!ready) return { nodes: NONE as FlowNode[], edges: NONE as RelEdge[] };
    const keep = (n: FlowNode) => n.type === 'ghost' || !!n.selected || !!n.dragging || n.id === editingId;
    const shown = cullNodes(nodes, window, keep, neighbours);
    return { nodes: shown, edges: edgesBetween(edges, new Set(shown.map((n) => n.id))) };
  }, [active, ready, nodes, edges, window, neighbours, editingId]);
}
