// The details tab of the side panel: one node, one link, several, or (nothing selected) the canvas overview.
// The node parts live in inspector/.

import type { CanvasEdge, CanvasNode } from '../api/types';
import type { Doc } from '../sync/apply';
import { EdgeInspector } from './EdgeInspector';
import { CanvasOverview } from './CanvasOverview';
import { MultiInspector } from './inspector/MultiInspector';
import { NodeInspector } from './inspector/NodeInspector';
import { useTranslation } from 'react-i18next';

interface Props {
  doc: Doc;
  selectedNodeIds: string[];
  selectedEdgeIds: string[];
  onDeleteSelection(): void;
}

export function Inspector({ doc, selectedNodeIds, selectedEdgeIds, onDeleteSelection }: Props) {
  const { t } = useTranslation('canvas');
  const nodes = selectedNodeIds.map((id) => doc.nodes.get(id)).filter((n): n is CanvasNode => !!n);
  const edges = selectedEdgeIds.map((id) => doc.edges.get(id)).filter((e): e is CanvasEdge => !!e);
  const edgeCount = edges.length;

  return (
    <aside className="inspector" data-testid="inspector" aria-label={t('inspector.label')}>
      {nodes.length === 1 && edgeCount === 0 ? (
        <NodeInspector key={nodes[0].id} node={nodes[0]} doc={doc} />
      ) : nodes.length === 0 && edgeCount === 1 ? (
        <EdgeInspector key={edges[0].id} edge={edges[0]} doc={doc} />
      ) : nodes.length > 1 || edgeCount > 0 ? (
        <MultiInspector nodeCount={nodes.length} edgeCount={edgeCount} onDelete={onDeleteSelection} />
      ) : (
        <CanvasOverview doc={doc} />
      )}
    </aside>
  );
}
