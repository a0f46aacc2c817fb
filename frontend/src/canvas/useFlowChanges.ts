// React Flow's change callbacks: selection into our Selection, sizes and drag
// positions into the node list, the drag shown to others live (presence) and
// committed once, on drop.
import { useCallback, type Dispatch, type SetStateAction } from 'react';
import { applyNodeChanges, type EdgeChange, type NodeChange } from '@xyflow/react';
import type { Op } from '../api/types';
import type { SyncEngine } from '../sync/engine';
import type { Selection } from './context';
import type { RelEdge } from './FloatingEdge';
import { coord, type FlowNode } from './flowNodes';

interface Options {
  engine: SyncEngine;
  readOnly: boolean;
  submit(op: Op): string | null;
  setSelection: Dispatch<SetStateAction<Selection>>;
  setRfNodes: Dispatch<SetStateAction<FlowNode[]>>;
}

export function useFlowChanges({ engine, readOnly, submit, setSelection, setRfNodes }: Options) {
  const onNodesChange = useCallback(
    (changes: NodeChange<FlowNode>[]) => {
      const sel = changes.filter((c) => c.type === 'select' && !c.id.startsWith('ghost-'));
      if (sel.length) {
        setSelection((prev) => {
          const nodes = new Set(prev.nodes);
          for (const c of sel) {
            if (c.type !== 'select') continue;
            if (c.selected) nodes.add(c.id);
            else nodes.delete(c.id);
          }
          return { nodes, edges: prev.edges };
        });
      }
      const rest = changes.filter((c) => c.type !== 'select' && c.type !== 'remove' && c.type !== 'add' && c.type !== 'replace');
      if (rest.length) setRfNodes((nds) => applyNodeChanges(rest, nds));
    },
    [setSelection, setRfNodes],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<RelEdge>[]) => {
      const sel = changes.filter((c) => c.type === 'select');
      if (!sel.length) return;
      setSelection((prev) => {
        const edges = new Set(prev.edges);
        for (const c of sel) {
          if (c.type !== 'select') continue;
          if (c.selected) edges.add(c.id);
          else edges.delete(c.id);
        }
        return { nodes: prev.nodes, edges };
      });
    },
    [setSelection],
  );

  // Others see the card move while it is dragged (presence, throttled); the move is committed once, on drop.
  const onNodeDrag = useCallback(
    (_e: unknown, node: FlowNode) => {
      if (readOnly || node.type !== 'card') return;
      engine.setActivity({ dragging: { id: node.id, x: coord(node.position.x), y: coord(node.position.y) } });
    },
    [engine, readOnly],
  );

  const onNodeDragStop = useCallback(
    (_e: unknown, _node: FlowNode, nodes: FlowNode[]) => {
      if (readOnly) return;
      engine.setActivity({ dragging: null });
      const ops: Op[] = [];
      for (const n of nodes) {
        const cur = engine.getNode(n.id);
        if (!cur) continue;
        const x = coord(n.position.x);
        const y = coord(n.position.y);
        if (cur.x !== x || cur.y !== y) ops.push({ type: 'node.move', id: n.id, x, y });
      }
      if (ops.length === 1) submit(ops[0]);
      else if (ops.length > 1) submit({ type: 'batch', ops });
    },
    [engine, readOnly, submit],
  );
  return { onNodesChange, onEdgesChange, onNodeDrag, onNodeDragStop };
}
