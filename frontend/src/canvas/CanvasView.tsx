import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type Dispatch,
  type MouseEvent as ReactMouseEvent,
  type SetStateAction,
} from 'react';
import { useTranslation } from 'react-i18next';
import {
  Background,
  BackgroundVariant,
  ConnectionMode,
  Controls,
  ReactFlow,
  useReactFlow,
} from '@xyflow/react';
import type { EngineState } from '../sync/engine';
import { snippet } from '../lib/format';
import { perfMark } from '../lib/perfMarks';
import { useCanvasActions, useEditingId, type Selection } from './context';
import type { RelEdge } from './FloatingEdge';
import { LOD_FIRST_PASS_NODES, LOD_LAYER_MIN_NODES, LodCard, LodEdge, LowDetailContext, MINIMAP_MAX_NODES, useLowDetailFlag } from './lod/lod';
import { LodLayer } from './lod/LodLayer';
import type { Scene } from './lod/lodScene';
import { useLodPointer } from './lod/useLodPointer';
import { RelationPicker } from './RelationPicker';
import { CanvasMiniMap } from './CanvasMiniMap';
import { EdgeEditor } from './EdgeEditor';
import { RemoteCursors } from './RemoteCursors';
import { useOverlay } from './overlay';
import { GhostCard } from '../agent/GhostNode';
import { ghostsFor, markedNodes } from '../agent/proposals';
import { buildNodes, decorate, type FlowNode } from './flowNodes';
import { useCanvasKeyboard } from './useCanvasKeyboard';
import { usePaneNewNote } from './editing/usePaneNewNote';
import { PeerActivityContext, usePeerActivity } from './editing/peerActivity';
import { CanvasDrafts } from './editing/CanvasDrafts';
import { useCanvasViewport } from './viewport/useCanvasViewport';
import { useFlowEdges } from './useFlowEdges';
import { useFlowChanges } from './useFlowChanges';
import { useConnectDraft } from './useConnectDraft';
import { CULL_MIN_NODES } from './lod/culling';
import { useCulledFlow } from './lod/useCulledFlow';
import { FitAllButton } from './lod/FitAllButton';
import { isCoarsePointer } from './narrowScreen';
import './CanvasView.css';

// cards and edges switch to a simple block/line below the level-of-detail zoom (lod/)
const nodeTypes = { card: LodCard, ghost: GhostCard };
const edgeTypes = { floating: LodEdge };
// Shift+click extends the selection, like Ctrl/Cmd+click.
const MULTI_SELECT_KEYS = ['Shift', 'Meta', 'Control'];

interface Props {
  state: EngineState;
  selection: Selection;
  setSelection: Dispatch<SetStateAction<Selection>>;
  onDeleteSelection(): void;
}

export function CanvasView({ state, selection, setSelection, onDeleteSelection }: Props) {
  const { t } = useTranslation('editing');
  const { engine, canvasId, readOnly, submit, startEditing, focusNode, overlay: overlayStore } = useCanvasActions();
  const overlay = useOverlay(overlayStore);
  const editingId = useEditingId();
  const rf = useReactFlow<FlowNode, RelEdge>();
  const wrapperRef = useRef<HTMLDivElement>(null);
  const [rfNodes, setRfNodes] = useState<FlowNode[]>([]);
  const [edgeEdit, setEdgeEdit] = useState<{ id: string; x: number; y: number } | null>(null);
  const pointer = useRef<{ x: number; y: number } | null>(null);
  const { doc, pendingIds } = state;
  const activity = usePeerActivity(engine);
  // Zoomed out on a big canvas, one <canvas> draws the nodes React Flow does not need to mount (lod/LodLayer).
  const lowZoom = useLowDetailFlag();
  const layer = lowZoom && doc.nodes.size > LOD_LAYER_MIN_NODES;
  const sceneRef = useRef<Scene | null>(null);
  const lod = useLodPointer({ active: layer, sceneRef, wrapperRef, selection, setSelection, focusNode });

  const ghosts = useMemo(() => ghostsFor(overlay.proposals, doc), [overlay.proposals, doc]);
  const decor = useMemo(() => decorate(overlay, markedNodes(overlay.proposals)), [overlay]);

  useLayoutEffect(() => {
    setRfNodes((prev) => buildNodes(prev, doc, pendingIds, selection.nodes, readOnly, decor, ghosts.nodes, activity.dragged));
  }, [doc, pendingIds, selection.nodes, readOnly, decor, ghosts.nodes, activity.dragged]);

  const onGhostClick = useCallback((proposalId: number) => overlayStore.focusProposal(proposalId), [overlayStore]);

  const toLocal = useCallback((clientX: number, clientY: number) => {
    const rect = wrapperRef.current?.getBoundingClientRect();
    return { x: clientX - (rect?.left ?? 0), y: clientY - (rect?.top ?? 0) };
  }, []);

  const onLabelClick = useCallback(
    (id: string, clientX: number, clientY: number) => {
      setSelection({ nodes: new Set(), edges: new Set([id]) });
      setEdgeEdit({ id, ...toLocal(clientX, clientY) });
    },
    [setSelection, toLocal],
  );

  const rfEdges = useFlowEdges(doc, pendingIds, selection.edges, ghosts.edges, onLabelClick, onGhostClick);

  // ------------------------------------------------------------ React Flow callbacks

  const { onNodesChange, onEdgesChange, onNodeDrag, onNodeDragStop } = useFlowChanges({ engine, readOnly, submit, setSelection, setRfNodes });

  const { connectDraft, setConnectDraft, onConnect, onConnectEnd, pickRelation } = useConnectDraft({ readOnly, submit, pointer, toLocal });

  const onNodeDoubleClick = useCallback(
    (_e: ReactMouseEvent, node: FlowNode) => {
      if (node.type !== 'card') return;
      if (lowZoom) focusNode(node.id);
      else if (!readOnly) startEditing(node.id);
    },
    [readOnly, startEditing, lowZoom, focusNode],
  );

  const onEdgeClick = useCallback(
    (e: ReactMouseEvent, edge: RelEdge) => {
      if (edge.data?.ghostProposalId) {
        onGhostClick(edge.data.ghostProposalId);
        return;
      }
      setEdgeEdit({ id: edge.id, ...toLocal(e.clientX, e.clientY) });
    },
    [toLocal, onGhostClick],
  );

  const onNodeClick = useCallback(
    (_e: ReactMouseEvent, node: FlowNode) => {
      if (node.type === 'ghost') onGhostClick(node.data.proposal.id);
    },
    [onGhostClick],
  );

  const onPaneClick = useCallback(
    (e: ReactMouseEvent) => {
      lod.onPaneClick(e);
      setEdgeEdit(null);
      setConnectDraft(null);
    },
    [lod, setConnectDraft],
  );

  // Double-click (mouse) or long press (touch) on the empty pane opens a new-note draft there.
  const paneNote = usePaneNewNote({ setSelection, onLayerDoubleClick: lod.onPaneDoubleClick });

  const toWrapper = useCallback(
    (p: { x: number; y: number }) => {
      const s = rf.flowToScreenPosition(p);
      return toLocal(s.x, s.y);
    },
    [rf, toLocal],
  );

  // ------------------------------------------------------------ keyboard

  useCanvasKeyboard({ engine, readOnly, selection, setSelection, editingId, startEditing, onDeleteSelection });

  // ------------------------------------------------------------ viewport: presence, opening, memory

  // Above CULL_MIN_NODES React Flow gets only the nodes near the viewport (lod/culling.ts), sizes are
  // estimated for the opening viewport instead of measured, and nothing mounts before it is set.
  const culled = doc.nodes.size > CULL_MIN_NODES;
  const { sendPresence, rememberViewport, opened } = useCanvasViewport({
    wrapperRef, pointer, engine, overlayStore, canvasId, state, estimateSizes: culled,
  });
  const flow = useCulledFlow(rfNodes, rfEdges, { active: culled, ready: opened || !state.synced, layer, editingId });

  const hasNodes = flow.nodes.length > 0;
  useEffect(() => {
    if (hasNodes) perfMark('nodes-mounted');
  }, [hasNodes]);

  const lowDetail = lowZoom || (!culled && !opened && doc.nodes.size > LOD_FIRST_PASS_NODES);
  const editingEdge = edgeEdit ? doc.edges.get(edgeEdit.id) : undefined;
  const empty = state.synced && doc.nodes.size === 0;

  return (
    <div
      className={`canvas-wrapper${readOnly ? ' readonly' : ''}${overlay.preview ? ' previewing' : ''}${overlay.agentOnly ? ' agent-filter' : ''}`}
      ref={wrapperRef}
      data-testid="canvas"
      {...paneNote}
      onPointerMove={(e) => {
        pointer.current = { x: e.clientX, y: e.clientY };
        lod.onPointerMove(e);
        sendPresence();
      }}
      onPointerLeave={() => {
        pointer.current = null;
        sendPresence();
      }}
    >
      <PeerActivityContext.Provider value={activity}>
      <LowDetailContext.Provider value={lowDetail}>
      <ReactFlow<FlowNode, RelEdge>
        nodes={flow.nodes}
        edges={flow.edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        onNodeDrag={onNodeDrag}
        onNodeDragStop={onNodeDragStop}
        onNodeDoubleClick={onNodeDoubleClick}
        onNodeClick={onNodeClick}
        onEdgeClick={onEdgeClick}
        onPaneClick={onPaneClick}
        onSelectionStart={lod.onSelectionStart}
        onSelectionEnd={lod.onSelectionEnd}
        onMove={sendPresence}
        onMoveEnd={rememberViewport}
        connectionMode={ConnectionMode.Loose}
        connectionLineStyle={{ stroke: '#6366f1', strokeWidth: 2 }}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        elementsSelectable
        deleteKeyCode={null}
        multiSelectionKeyCode={MULTI_SELECT_KEYS}
        zoomOnDoubleClick={false}
        minZoom={0.1}
        maxZoom={2.5}
        onlyRenderVisibleElements={doc.nodes.size > 400}
        // bottom centre: the corners hold the toolbar, the inspector toggle, the zoom controls and the mini map
        attributionPosition="bottom-center"
        fitViewOptions={{ padding: 0.2, maxZoom: 1 }}
      >
        <Background variant={BackgroundVariant.Dots} gap={22} size={1.4} color="#cbd5e1" />
        <Controls showInteractive={false} showFitView={!culled} position="bottom-left">
          {culled && <FitAllButton nodes={rfNodes} />}
        </Controls>
        {doc.nodes.size <= MINIMAP_MAX_NODES && <CanvasMiniMap />}
        {layer && <LodLayer nodes={rfNodes} edges={rfEdges} mounted={flow.mounted} sceneRef={sceneRef} />}
        <RemoteCursors engine={engine} />
      </ReactFlow>
      </LowDetailContext.Provider>
      </PeerActivityContext.Provider>
      <CanvasDrafts doc={doc} toWrapper={toWrapper} />

      {!state.synced && (
        <div className="canvas-overlay" data-testid="canvas-loading">
          <span className="spinner" /> {state.status === 'offline' ? t('canvasView.offline') : t('canvasView.loading')}
        </div>
      )}
      {empty && (
        <div className="canvas-empty-hint" data-testid="canvas-empty">
          {readOnly ? t('canvasView.empty') : isCoarsePointer() ? t('canvasView.emptyHintTouch') : t('canvasView.emptyHint')}
        </div>
      )}
      {connectDraft && <RelationPicker x={connectDraft.x} y={connectDraft.y} onPick={pickRelation} onCancel={() => setConnectDraft(null)} />}
      {edgeEdit && editingEdge && (
        <EdgeEditor
          key={edgeEdit.id}
          edge={editingEdge}
          sourceText={snippet(doc.nodes.get(editingEdge.source)?.content ?? '', 28)}
          targetText={snippet(doc.nodes.get(editingEdge.target)?.content ?? '', 28)}
          x={edgeEdit.x}
          y={edgeEdit.y}
          onClose={() => setEdgeEdit(null)}
        />
      )}
    </div>
  );
}
