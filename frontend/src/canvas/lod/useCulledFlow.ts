// What React Flow gets on a big canvas: the nodes near the viewport (culling.ts)
// and the edges between them; re-renders only when the snapped window changes.
// With the level-of-detail layer on (LodLayer.tsx) only the nodes that must be
// real React Flow nodes (selected, dragged, edited, ghosts): the layer draws
// the rest, and a pan changes nothing here.
import { useMemo } from 'react';
import { useStore, type ReactFlowState } from '@xyflow/react';
import type { FlowNode } from '../flowNodes';
import type { RelEdge } from '../FloatingEdge';
import { cullNodes, cullWindow, edgesBetween, neighboursOf, sameRect, type Rect } from './culling';

const NO_WINDOW: Rect = { x: 0, y: 0, width: 0, height: 0 };
const selectWindow = (s: ReactFlowState) => cullWindow(s.transform, { width: s.width, height: s.height });
const selectNothing = () => NO_WINDOW;
const NONE: never[] = [];
const NO_IDS: ReadonlySet<string> = new Set();

interface Options {
  /** cull at all (big canvas) */
  active: boolean;
  /** the opening viewport is set; until then a culled canvas mounts nothing (it would mount the wrong part) */
  ready: boolean;
  /** the level-of-detail layer draws every node React Flow does not need to mount */
  layer: boolean;
  editingId: string | null;
}

export interface CulledFlow {
  nodes: FlowNode[];
  edges: RelEdge[];
  /** ids of the nodes handed to React Flow (the layer skips them) */
  mounted: ReadonlySet<string>;
}

export function useCulledFlow(nodes: FlowNode[], edges: RelEdge[], { active, ready, layer, editingId }: Options): CulledFlow {
  const window = useStore(active && !layer ? selectWindow : selectNothing, sameRect);
  const neighbours = useMemo(() => (active && !layer ? neighboursOf(edges) : undefined), [active, layer, edges]);
  return useMemo(() => {
    const keep = (n: FlowNode) => n.type === 'ghost' || !!n.selected || !!n.dragging || n.id === editingId;
    if (layer) {
      const shown = nodes.filter(keep);
      const ids = new Set(shown.map((n) => n.id));
      return { nodes: shown, edges: edgesBetween(edges, ids), mounted: ids };
    }
    if (!active) return { nodes, edges, mounted: NO_IDS };
    if (!ready) return { nodes: NONE as FlowNode[], edges: NONE as RelEdge[], mounted: NO_IDS };
    const shown = cullNodes(nodes, window, keep, neighbours);
    const ids = new Set(shown.map((n) => n.id));
    return { nodes: shown, edges: edgesBetween(edges, ids), mounted: ids };
  }, [active, ready, layer, nodes, edges, window, neighbours, editingId]);
}
