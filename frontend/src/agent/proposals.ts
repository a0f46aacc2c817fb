// The agent's proposal queue as a pure reducer: the REST list is the source
// of truth, `agent.proposal` frames keep it live, and staleness is also
// checked against the document this client sees (a node the proposal changes
// got a new version, or a node it links to is gone).
import type { CanvasEdge, CanvasNode, Proposal } from '../api/types';
import { normalizeNode, type Doc } from '../sync/apply';
import i18n from 'i18next';

export interface ProposalsState {
  byId: Readonly<Record<number, Proposal>>;
  loaded: boolean;
  error: string | null;
}

export const INITIAL_PROPOSALS: ProposalsState = { byId: {}, loaded: false, error: null };

export type ProposalsAction =
  | { type: 'loaded'; proposals: Proposal[] }
  | { type: 'loadFailed'; message: string }
  | { type: 'frame'; action: string; proposal: Proposal }
  | { type: 'decided'; proposal: Proposal };

export function proposalsReducer(state: ProposalsState, action: ProposalsAction): ProposalsState {
  switch (action.type) {
    case 'loaded': {
      const byId: Record<number, Proposal> = {};
      for (const p of action.proposals) byId[p.id] = p;
      // Frames that arrived while the list was loading may be newer than it.
      for (const p of Object.values(state.byId)) {
        const loaded = byId[p.id];
        if (!loaded || (loaded.status === 'pending' && p.status !== 'pending')) byId[p.id] = p;
      }
      return { byId, loaded: true, error: null };
    }
    case 'loadFailed':
      return { ...state, loaded: true, error: action.message };
    case 'frame':
    case 'decided': {
      const p = action.proposal;
      if (!p || typeof p.id !== 'number') return state;
      const cur = state.byId[p.id];
      // A decision is final: a late "created" frame must not reopen it.
      if (cur && cur.status !== 'pending' && p.status === 'pending') return state;
      // Frames carry stale=false; keep what the list endpoint said for pending ones.
      const merged = cur && p.status === 'pending' ? { ...p, stale: cur.stale, stale_reason: cur.stale_reason } : p;
      return { ...state, byId: { ...state.byId, [p.id]: merged } };
    }
    default:
      return state;
  }
}

/** Pending proposals, newest first. */
export function pendingProposals(state: ProposalsState): Proposal[] {
  return Object.values(state.byId)
    .filter((p) => p.status === 'pending')
    .sort((a, b) => b.id - a.id);
}

/** Recently decided proposals, newest decision first. */
export function decidedProposals(state: ProposalsState, limit = 20): Proposal[] {
  return Object.values(state.byId)
    .filter((p) => p.status !== 'pending')
    .sort((a, b) => (b.decided_at ?? '').localeCompare(a.decided_at ?? '') || b.id - a.id)
    .slice(0, limit);
}

/** Why a pending proposal is stale, judged from the server flag and the local document; null if current. */
export function staleReason(p: Proposal, doc: Doc): string | null {
  if (p.status !== 'pending') return null;
  const reasons: string[] = [];
  if (p.stale) reasons.push(p.stale_reason || i18n.t('panels:proposals.staleReasons.edited'));
  const target = p.diff?.target;
  if (target && doc.nodes.size > 0) {
    const now = doc.nodes.get(target.id);
    if (!now) reasons.push(i18n.t('panels:proposals.staleReasons.deleted'));
    else if (typeof target.version === 'number' && now.version !== target.version) reasons.push(i18n.t('panels:proposals.staleReasons.edited'));
  }
  if (p.tool === 'link_nodes' && p.diff?.edge && doc.nodes.size > 0) {
    for (const id of [p.diff.edge.source, p.diff.edge.target]) {
      const n = doc.nodes.get(id);
      if (!n || n.superseded_by || n.archived) reasons.push(i18n.t('panels:proposals.staleReasons.linkGone'));
    }
  }
  const separator = i18n.t('panels:proposals.staleReasons.separator');
  const unique = [...new Set(reasons.flatMap((r) => r.split('; ').flatMap((x) => x.split(separator))))];
  return unique.length ? unique.join(separator) : null;
}

export interface GhostNodeData extends Record<string, unknown> {
  proposal: Proposal;
  node: CanvasNode;
  /** what the ghost shows: a new node, a replacement, or a node's new position */
  mode: 'add' | 'supersede' | 'move';
}

export interface GhostEdgeData {
  proposal: Proposal;
  edge: CanvasEdge;
}

export const ghostNodeId = (proposalId: number) => `ghost-p${proposalId}`;

function fakeNode(base: Partial<CanvasNode> & { id: string; x: number; y: number }): CanvasNode {
  return normalizeNode({ author_kind: 'agent', ...base });
}

/**
 * Ghost nodes and edges for pending proposals: new nodes (add_node,
 * supersede_node) and moved nodes are drawn where they would land; links
 * (link_nodes, and the supersedes link) as dashed edges. Updates and
 * archives mark the existing node instead (see markedNodes).
 */
export function ghostsFor(pending: readonly Proposal[], doc: Doc): { nodes: GhostNodeData[]; edges: GhostEdgeData[] } {
  const nodes: GhostNodeData[] = [];
  const edges: GhostEdgeData[] = [];
  for (const p of pending) {
    const d = p.diff ?? ({ fields: [] } as Proposal['diff']);
    if ((p.tool === 'add_node' || p.tool === 'supersede_node') && d.node) {
      // Approved: the real node (same id) arrives before the "approved" frame; do not draw both.
      if (d.node.id && doc.nodes.has(d.node.id)) continue;
      const id = ghostNodeId(p.id);
      nodes.push({
        proposal: p,
        mode: p.tool === 'add_node' ? 'add' : 'supersede',
        node: fakeNode({ ...d.node, id, kind: (d.node.kind ?? 'note') as CanvasNode['kind'] }),
      });
      if (p.tool === 'supersede_node' && d.target && doc.nodes.has(d.target.id)) {
        edges.push({
          proposal: p,
          edge: { id: `ghost-e${p.id}`, source: id, target: d.target.id, relation: 'supersedes', label: '', created_by: null, version: 0, created_at: null, updated_at: null },
        });
      }
    } else if (p.tool === 'move_node' && d.target) {
      const cur = doc.nodes.get(d.target.id);
      const x = Number(d.fields.find((f) => f.field === 'x')?.after);
      const y = Number(d.fields.find((f) => f.field === 'y')?.after);
      if (cur && Number.isFinite(x) && Number.isFinite(y)) {
        nodes.push({ proposal: p, mode: 'move', node: { ...cur, id: ghostNodeId(p.id), x, y } });
      }
    } else if (p.tool === 'link_nodes' && d.edge) {
      if (doc.nodes.has(d.edge.source) && doc.nodes.has(d.edge.target)) {
        edges.push({
          proposal: p,
          edge: {
            id: `ghost-e${p.id}`,
            source: d.edge.source,
            target: d.edge.target,
            relation: d.edge.relation as CanvasEdge['relation'],
            label: d.edge.label ?? '',
            created_by: null,
            version: 0,
            created_at: null,
            updated_at: null,
          },
        });
      }
    }
  }
  return { nodes, edges };
}

/** Existing nodes that a pending proposal would change in place (update, archive, supersede, move): id → proposal ids. */
export function markedNodes(pending: readonly Proposal[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const p of pending) {
    const id = p.diff?.target?.id;
    if (!id) continue;
    out.set(id, [...(out.get(id) ?? []), p.id]);
  }
  return out;
}

export const PROPOSAL_TOOLS = ['add_node', 'update_node', 'move_node', 'link_nodes', 'supersede_node', 'archive_node'] as const;
// canvasweb/agent/models.py ProposalStatus
export const PROPOSAL_STATUSES = ['pending', 'approved', 'rejected', 'failed'] as const;

/** "Add node" / "添加节点": the tool's name in the UI language (unknown tools keep their wire name). */
export function toolLabel(tool: string): string {
  return (PROPOSAL_TOOLS as readonly string[]).includes(tool) ? i18n.t(`panels:proposals.tools.${tool}`) : tool;
}

/** A proposal's status chip: the raw server value (`pending`, …) in words of the UI language. */
export function statusLabel(status: string): string {
  return (PROPOSAL_STATUSES as readonly string[]).includes(status) ? i18n.t(`panels:proposals.status.${status}`) : status;
}
