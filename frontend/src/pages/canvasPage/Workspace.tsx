import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useReactFlow } from '@xyflow/react';
import type { AgentPolicyValue, CanvasSummary, Op } from '../../api/types';
import { useAuth } from '../../lib/auth';
import { registerCanvas } from '../../lib/testHooks';
import type { SyncEngine } from '../../sync/engine';
import { CanvasActionsContext, EditingContext, EMPTY_SELECTION, useEngineState, type CanvasActions, type Selection } from '../../canvas/context';
import { CanvasLayout } from '../../canvas/CanvasLayout';
import { CanvasView } from '../../canvas/CanvasView';
import { Inspector } from '../../canvas/Inspector';
import { OverlayStore, useOverlay } from '../../canvas/overlay';
import { SidePanel, type SideTab } from '../../canvas/SidePanel';
import { CanvasToolbar } from '../../canvas/CanvasToolbar';
import { CanvasSearch } from '../../canvas/search/CanvasSearch';
import { ProposalsPanel } from '../../agent/ProposalsPanel';
import { useProposals } from '../../agent/useProposals';
import { ActivityFeed } from '../../history/ActivityFeed';
import { useNodeClipboard } from '../../canvas/clipboard/useNodeClipboard';
import { useUndoRedo } from '../../history/useUndoRedo';
import { EditSession, EditSessionContext } from '../../canvas/editing/editSession';
import { ConflictDialog } from '../../canvas/editing/ConflictDialog';
import { usePeerChangeToasts } from '../../canvas/editing/usePeerChangeToasts';
import { useTranslation } from 'react-i18next';
import { CanvasHeader, RevokedBanner } from './CanvasHeader';
import { initialChatOpen, rememberChatOpen } from './chatOpen';
import { inspectorFloats, isPhoneWidth } from '../../canvas/narrowScreen';
import { useCanvasFocus } from './useCanvasFocus';
import { useDeleteSelection } from './useDeleteSelection';
import { WorkspaceDialogs, type OpenDialog } from './WorkspaceDialogs';

interface Props {
  engine: SyncEngine;
  canvasId: string;
  meta: CanvasSummary | null;
  onMeta(c: CanvasSummary): void;
  chat?: ReactNode;
}

/** An open canvas: the flow, the side panel, the chat slot, the header and the dialogs, sharing one selection. */
export function Workspace({ engine, canvasId, meta, onMeta, chat }: Props) {
  const { t } = useTranslation('canvas');
  const state = useEngineState(engine);
  const overlayStore = useMemo(() => new OverlayStore(), []);
  const overlay = useOverlay(overlayStore);
  const auth = useAuth();
  const rf = useReactFlow();
  const role = state.role ?? meta?.role ?? null;
  const readOnly = role === null || role === 'viewer' || state.revoked;
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [membersOpen, setMembersOpen] = useState(false);
  // Where the inspector floats over the canvas it starts closed, so the canvas is what one sees first.
  const [inspectorOpen, setInspectorOpen] = useState(() => !inspectorFloats());
  const [chatOpen, setChatOpen] = useState(initialChatOpen);
  const [sideTab, setSideTab] = useState<SideTab>('details');
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [auditOpen, setAuditOpen] = useState(false);

  const { focusNode, focusPoint } = useCanvasFocus(engine, rf, setSelection);

  const startEditing = useCallback((id: string | null) => setEditingId(readOnly ? null : id), [readOnly]);

  // Rejected and conflicting edits come back here instead of being dropped (docs/protocol.md, CONFLICT).
  const editSession = useMemo(
    () =>
      new EditSession(
        (id) => {
          setSelection({ nodes: new Set([id]), edges: new Set() });
          setEditingId(id);
        },
        (id) => !!engine.getNode(id),
      ),
    [engine],
  );
  useEffect(() => engine.onNotice((n) => editSession.onNotice(n)), [engine, editSession]);
  usePeerChangeToasts(engine);

  const actions = useMemo<CanvasActions>(
    () => ({
      engine,
      canvasId,
      readOnly,
      submit: (op: Op) => (readOnly ? null : engine.submit(op)),
      startEditing,
      focusNode,
      selectOnly: (nodes: string[], edges: string[] = []) => setSelection({ nodes: new Set(nodes), edges: new Set(edges) }),
      measure: (id: string) => rf.getInternalNode(id)?.measured,
      overlay: overlayStore,
      role,
      focusPoint,
    }),
    [engine, canvasId, readOnly, startEditing, focusNode, rf, overlayStore, role, focusPoint],
  );

  const proposals = useProposals(engine, canvasId, overlayStore, state.status);

  const pastePoint = useCallback(() => {
    const v = overlayStore.getViewport();
    return v ? { x: v.x, y: v.y } : null;
  }, [overlayStore]);
  useNodeClipboard({ engine, readOnly, role, selection, setSelection, pastePoint, measure: actions.measure });
  const undo = useUndoRedo(canvasId, engine, state.revision, !readOnly && state.synced);
  const policy = ((state.canvas?.agent_policy as AgentPolicyValue | undefined) ?? (meta?.agent_policy as AgentPolicyValue | undefined) ?? null) as AgentPolicyValue | null;
  const agentCount = useMemo(() => {
    let n = 0;
    for (const node of state.doc.nodes.values()) if (node.author_kind === 'agent') n++;
    return n;
  }, [state.doc]);

  // Ghost clicks, chat links etc. ask for a side-panel tab.
  useEffect(() => {
    const req = overlay.panelRequest;
    if (!req) return;
    if (req.tab === 'details' || req.tab === 'activity' || req.tab === 'proposals') setSideTab(req.tab);
    setInspectorOpen(true);
    if (isPhoneWidth()) setChatOpen(false);
  }, [overlay.panelRequest]);

  // Selecting a node shows its details.
  useEffect(() => {
    if (selection.nodes.size > 0 || selection.edges.size > 0) setSideTab((t) => (t === 'activity' ? t : 'details'));
  }, [selection]);

  useEffect(() => registerCanvas(engine, canvasId, focusNode), [engine, canvasId, focusNode]);

  // Leave edit mode if the node disappears (deleted remotely) or we lose edit rights.
  useEffect(() => {
    if (editingId && (readOnly || !state.doc.nodes.has(editingId))) setEditingId(null);
  }, [editingId, readOnly, state.doc]);

  const deleteSelection = useDeleteSelection(engine, readOnly, selection, setSelection);

  const name = (state.canvas?.name as string | undefined) || meta?.name || t('page.untitled');
  useEffect(() => {
    document.title = `${name} · Canvasweb`;
    return () => {
      document.title = 'Canvasweb';
    };
  }, [name]);

  const selectedNodeIds = useMemo(() => [...selection.nodes], [selection.nodes]);
  const selectedEdgeIds = useMemo(() => [...selection.edges], [selection.edges]);
  const me = state.user ?? auth.user;
  const closeDialog = useCallback((which: keyof OpenDialog) => {
    if (which === 'settings') setSettingsOpen(false);
    else if (which === 'members') setMembersOpen(false);
    else setAuditOpen(false);
  }, []);

  const header = (
    <CanvasHeader
      engine={engine}
      state={state}
      rf={rf}
      role={role}
      name={name}
      me={me}
      onAudit={() => setAuditOpen(true)}
      onSettings={() => setSettingsOpen(true)}
      onMembers={() => setMembersOpen(true)}
    />
  );

  const banner = state.revoked ? <RevokedBanner /> : null;

  return (
    <CanvasActionsContext.Provider value={actions}>
      <EditSessionContext.Provider value={editSession}>
      <EditingContext.Provider value={editingId}>
        <CanvasLayout
          header={header}
          banner={banner}
          canvas={
            <>
              <CanvasView state={state} selection={selection} setSelection={setSelection} onDeleteSelection={deleteSelection} />
              {state.synced && <CanvasToolbar undo={readOnly ? null : undo} agentCount={agentCount} name={name} role={role} />}
              {state.synced && <CanvasSearch doc={state.doc} onPick={focusNode} />}
            </>
          }
          inspector={
            <SidePanel
              tab={sideTab}
              onTab={setSideTab}
              proposalCount={proposals.pending.length}
              details={<Inspector doc={state.doc} selectedNodeIds={selectedNodeIds} selectedEdgeIds={selectedEdgeIds} onDeleteSelection={deleteSelection} />}
              activity={<ActivityFeed revision={state.revision} />}
              proposals={
                <ProposalsPanel controller={proposals} doc={state.doc} policy={policy} isOwner={role === 'owner'} onOpenSettings={() => setSettingsOpen(true)} />
              }
            />
          }
          inspectorOpen={inspectorOpen}
          onToggleInspector={() => {
            // on a phone both sheets would cover the canvas: one at a time
            if (!inspectorOpen && isPhoneWidth()) setChatOpen(false);
            setInspectorOpen(!inspectorOpen);
          }}
          chat={chat}
          chatOpen={chatOpen}
          onToggleChat={() => {
            if (!chatOpen && isPhoneWidth()) setInspectorOpen(false);
            rememberChatOpen(!chatOpen);
            setChatOpen(!chatOpen);
          }}
        />
        <WorkspaceDialogs
          canvasId={canvasId}
          name={name}
          policy={policy}
          meta={meta}
          onMeta={onMeta}
          me={me}
          isOwner={role === 'owner'}
          doc={state.doc}
          selectedNodeIds={selectedNodeIds}
          open={{ settings: settingsOpen, members: membersOpen, audit: auditOpen }}
          onClose={closeDialog}
        />
        <ConflictDialog />
      </EditingContext.Provider>
      </EditSessionContext.Provider>
    </CanvasActionsContext.Provider>
  );
}
