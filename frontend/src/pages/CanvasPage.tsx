import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ReactFlowProvider, useReactFlow } from '@xyflow/react';
import { api, ApiError } from '../api/client';
import type { AgentPolicyValue, CanvasSummary, Op } from '../api/types';
import { AppHeader } from '../components/AppHeader';
import { ActivityIcon, EyeIcon, SettingsIcon, UsersIcon } from '../components/Icons';
import { Spinner } from '../components/Spinner';
import { setCurrentUser, useAuth } from '../lib/auth';
import { linkHandler } from '../lib/router';
import { registerCanvas } from '../lib/testHooks';
import { toast } from '../lib/toast';
import type { SyncEngine } from '../sync/engine';
import { CanvasActionsContext, EditingContext, EMPTY_SELECTION, useEngineState, type CanvasActions, type Selection } from '../canvas/context';
import { CanvasLayout } from '../canvas/CanvasLayout';
import { CanvasView } from '../canvas/CanvasView';
import { ConnectionIndicator } from '../canvas/ConnectionIndicator';
import { Inspector } from '../canvas/Inspector';
import { MembersDialog } from '../canvas/MembersDialog';
import { PresenceAvatars } from '../canvas/PresenceAvatars';
import { useCanvasEngine } from '../canvas/useCanvasEngine';
import { OverlayStore, useOverlay } from '../canvas/overlay';
import { SidePanel, type SideTab } from '../canvas/SidePanel';
import { CanvasToolbar } from '../canvas/CanvasToolbar';
import { CanvasSearch } from '../canvas/search/CanvasSearch';
import { ProposalsPanel } from '../agent/ProposalsPanel';
import { useProposals } from '../agent/useProposals';
import { CanvasSettingsDialog } from '../agent/CanvasSettingsDialog';
import { ActivityFeed } from '../history/ActivityFeed';
import { AuditDialog } from '../history/AuditDialog';
import { useNodeClipboard } from '../canvas/clipboard/useNodeClipboard';
import { useUndoRedo } from '../history/useUndoRedo';
import { NotFoundPage } from './NotFoundPage';
import { EditSession, EditSessionContext } from '../canvas/editing/editSession';
import { ConflictDialog } from '../canvas/editing/ConflictDialog';
import { useTranslation } from 'react-i18next';

const CHAT_OPEN_KEY = 'canvasweb.chatOpen';
/** from this window width the chat (the core feature) starts open */
export const CHAT_OPEN_MIN_WIDTH = 1280;

/** The chat starts open when there is room for it next to the canvas and the inspector (or as last left). */
function initialChatOpen(): boolean {
  try {
    const saved = window.localStorage.getItem(CHAT_OPEN_KEY);
    if (saved === '1' || saved === '0') return saved === '1';
  } catch {
    /* storage blocked */
  }
  return typeof window === 'undefined' || window.innerWidth >= CHAT_OPEN_MIN_WIDTH;
}

function rememberChatOpen(open: boolean) {
  try {
    window.localStorage.setItem(CHAT_OPEN_KEY, open ? '1' : '0');
  } catch {
    /* storage blocked */
  }
}

interface Props {
  canvasId: string;
  /** chat panel slot (see CanvasLayout) */
  chat?: ReactNode;
}

export function CanvasPage({ canvasId, chat }: Props) {
  const { t } = useTranslation('canvas');
  const [meta, setMeta] = useState<CanvasSummary | null>(null);
  const [missing, setMissing] = useState(false);

  useEffect(() => {
    let alive = true;
    api
      .getCanvas(canvasId)
      .then((c) => alive && setMeta(c))
      .catch((err) => {
        if (!alive) return;
        if (err instanceof ApiError && err.isAuth) setCurrentUser(null);
        else if (err instanceof ApiError && (err.status === 404 || err.status === 403)) setMissing(true);
        else toast.error(err instanceof Error ? err.message : String(err), t('page.loadFailed'));
      });
    return () => {
      alive = false;
    };
  }, [canvasId, t]);

  const engine = useCanvasEngine(missing ? null : canvasId);

  if (missing) return <NotFoundPage message={t('page.missing')} />;
  if (!engine) return <Spinner label={t('page.opening')} />;
  return (
    <ReactFlowProvider>
      <Workspace engine={engine} canvasId={canvasId} meta={meta} onMeta={setMeta} chat={chat} />
    </ReactFlowProvider>
  );
}

function Workspace({
  engine,
  canvasId,
  meta,
  onMeta,
  chat,
}: {
  engine: SyncEngine;
  canvasId: string;
  meta: CanvasSummary | null;
  onMeta(c: CanvasSummary): void;
  chat?: ReactNode;
}) {
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
  const [inspectorOpen, setInspectorOpen] = useState(true);
  const [chatOpen, setChatOpen] = useState(initialChatOpen);
  const [sideTab, setSideTab] = useState<SideTab>('details');
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [auditOpen, setAuditOpen] = useState(false);

  const focusNode = useCallback(
    (id: string) => {
      const n = engine.getNode(id);
      if (!n) return;
      const internal = rf.getInternalNode(id);
      const w = internal?.measured?.width ?? 200;
      const h = internal?.measured?.height ?? 80;
      void rf.setCenter(n.x + w / 2, n.y + h / 2, { zoom: Math.max(rf.getZoom(), 0.9), duration: 350 });
      setSelection({ nodes: new Set([id]), edges: new Set() });
    },
    [engine, rf],
  );

  const focusPoint = useCallback(
    (x: number, y: number) => void rf.setCenter(x, y, { zoom: Math.max(rf.getZoom(), 0.9), duration: 350 }),
    [rf],
  );

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

  const deleteSelection = useCallback(() => {
    if (readOnly) return;
    const doc = engine.getSnapshot().doc;
    const nodeIds = [...selection.nodes].filter((id) => doc.nodes.has(id));
    const gone = new Set(nodeIds);
    const edgeIds = [...selection.edges].filter((id) => {
      const e = doc.edges.get(id);
      return e && !gone.has(e.source) && !gone.has(e.target);
    });
    const ops: Op[] = [
      ...nodeIds.map((id): Op => ({ type: 'node.delete', id })),
      ...edgeIds.map((id): Op => ({ type: 'edge.delete', id })),
    ];
    if (ops.length === 0) return;
    engine.submit(ops.length === 1 ? ops[0] : { type: 'batch', ops });
    setSelection(EMPTY_SELECTION);
  }, [engine, readOnly, selection]);

  const name = (state.canvas?.name as string | undefined) || meta?.name || t('page.untitled');
  useEffect(() => {
    document.title = `${name} · Canvasweb`;
    return () => {
      document.title = 'Canvasweb';
    };
  }, [name]);

  const selectedNodeIds = useMemo(() => [...selection.nodes], [selection.nodes]);
  const selectedEdgeIds = useMemo(() => [...selection.edges], [selection.edges]);

  const header = (
    <AppHeader
      right={
        <>
          <PresenceAvatars
            me={state.user ?? auth.user}
            engine={engine}
            onFollow={(p) => p.viewport && void rf.setCenter(p.viewport.x, p.viewport.y, { zoom: p.viewport.zoom, duration: 400 })}
          />
          <ConnectionIndicator state={state} engine={engine} />
          {role === 'owner' && (
            <button className="btn btn-small" onClick={() => setAuditOpen(true)} data-testid="audit-button" title={t('page.auditHint')}>
              <ActivityIcon size={14} /> {t('page.audit')}
            </button>
          )}
          {role === 'owner' && (
            <button className="btn btn-small" onClick={() => setSettingsOpen(true)} data-testid="settings-button" title={t('page.settingsHint')}>
              <SettingsIcon size={14} /> {t('page.settings')}
            </button>
          )}
          <button className="btn btn-small" onClick={() => setMembersOpen(true)} data-testid="members-button">
            <UsersIcon size={14} /> {role === 'owner' ? t('page.share') : t('page.members')}
          </button>
        </>
      }
    >
      <nav className="crumbs" aria-label={t('page.breadcrumb')}>
        <a href="/" onClick={linkHandler('/')} className="crumb-link">
          {t('pages:list.title')}
        </a>
        <span className="crumb-sep">/</span>
        <span className="crumb" data-testid="canvas-name" title={name}>
          {name}
        </span>
        {role && !state.revoked && (
          <span className={`role-badge role-${role}`} data-testid="role-badge">
            {t(`common:roles.${role}`)}
          </span>
        )}
        {role === 'viewer' && (
          <span className="readonly-badge" data-testid="readonly-badge" title={t('page.readOnlyHint')}>
            <EyeIcon size={12} /> {t('page.readOnly')}
          </span>
        )}
      </nav>
    </AppHeader>
  );

  const banner = state.revoked ? (
    <div className="banner banner-error" role="alert" data-testid="revoked-banner">
      {t('page.revoked')}{' '}
      <a href="/" onClick={linkHandler('/')}>
        {t('pages:notFound.back')}
      </a>
    </div>
  ) : null;

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
          onToggleInspector={() => setInspectorOpen((v) => !v)}
          chat={chat}
          chatOpen={chatOpen}
          onToggleChat={() =>
            setChatOpen((v) => {
              rememberChatOpen(!v);
              return !v;
            })
          }
        />
        {settingsOpen && (
          <CanvasSettingsDialog
            canvasId={canvasId}
            name={name}
            policy={policy}
            onSaved={(c) => onMeta({ ...(meta ?? c), ...c })}
            onClose={() => setSettingsOpen(false)}
          />
        )}
        {membersOpen && <MembersDialog canvasId={canvasId} me={state.user ?? auth.user} isOwner={role === 'owner'} onClose={() => setMembersOpen(false)} />}
        {auditOpen && role === 'owner' && (
          <AuditDialog
            canvasId={canvasId}
            selectedNode={selectedNodeIds.length === 1 && state.doc.nodes.get(selectedNodeIds[0]) ? { id: selectedNodeIds[0], content: state.doc.nodes.get(selectedNodeIds[0])!.content } : null}
            onClose={() => setAuditOpen(false)}
          />
        )}
        <ConflictDialog />
      </EditingContext.Provider>
      </EditSessionContext.Provider>
    </CanvasActionsContext.Provider>
  );
}
