// Pure state transitions: applying server changes and optimistic ops.
//
// Documents are plain immutable maps so React (and React Flow) can skip
// re-rendering entities whose object identity did not change.

import type { CanvasEdge, CanvasNode, EntityChange, NodeCreateBody, Op, UserRef } from '../api/types';

export interface Doc {
  nodes: ReadonlyMap<string, CanvasNode>;
  edges: ReadonlyMap<string, CanvasEdge>;
}

export const EMPTY_DOC: Doc = { nodes: new Map(), edges: new Map() };

export function docFromLists(nodes: CanvasNode[], edges: CanvasEdge[]): Doc {
  return {
    nodes: new Map(nodes.map((n) => [n.id, normalizeNode(n)])),
    edges: new Map(edges.map((e) => [e.id, normalizeEdge(e)])),
  };
}

/** Fill in fields a (possibly older or partial) server payload may omit. */
export function normalizeNode(raw: Partial<CanvasNode> & { id: string }): CanvasNode {
  return {
    content: '',
    kind: 'note',
    x: 0,
    y: 0,
    weight: 1,
    tags: [],
    pinned: false,
    sensitivity: 'public',
    superseded_by: null,
    archived: false,
    created_by: null,
    author_kind: 'user',
    provenance: null,
    version: 0,
    created_at: null,
    updated_at: null,
    ...raw,
  } as CanvasNode;
}

export function normalizeEdge(raw: Partial<CanvasEdge> & { id: string; source: string; target: string }): CanvasEdge {
  return {
    relation: 'relates_to',
    label: '',
    created_by: null,
    version: 0,
    created_at: null,
    updated_at: null,
    ...raw,
  } as CanvasEdge;
}

/** A mutable working copy that only clones the maps it actually touches. */
class Draft {
  private nodes: Map<string, CanvasNode> | null = null;
  private edges: Map<string, CanvasEdge> | null = null;
  constructor(private readonly base: Doc) {}

  getNode(id: string) {
    return (this.nodes ?? this.base.nodes).get(id);
  }
  getEdge(id: string) {
    return (this.edges ?? this.base.edges).get(id);
  }
  setNode(node: CanvasNode) {
    if (!this.nodes) this.nodes = new Map(this.base.nodes);
    this.nodes.set(node.id, node);
  }
  deleteNode(id: string) {
    if (!this.getNode(id)) return;
    if (!this.nodes) this.nodes = new Map(this.base.nodes);
    this.nodes.delete(id);
  }
  setEdge(edge: CanvasEdge) {
    if (!this.edges) this.edges = new Map(this.base.edges);
    this.edges.set(edge.id, edge);
  }
  deleteEdge(id: string) {
    if (!this.getEdge(id)) return;
    if (!this.edges) this.edges = new Map(this.base.edges);
    this.edges.delete(id);
  }
  deleteEdgesTouching(nodeId: string) {
    for (const edge of (this.edges ?? this.base.edges).values()) {
      if (edge.source === nodeId || edge.target === nodeId) this.deleteEdge(edge.id);
    }
  }
  result(): Doc {
    if (!this.nodes && !this.edges) return this.base;
    return { nodes: this.nodes ?? this.base.nodes, edges: this.edges ?? this.base.edges };
  }
}

export interface ChangeSideEffects {
  /** canvas-level data changed (rename, agent policy) */
  canvas?: Record<string, unknown>;
  /** membership changes: user + role (role null when removed) */
  members?: { user: UserRef; role: string | null }[];
}

/** A non-null object (wire JSON record); arrays count too, as `typeof x === 'object'` did. */
function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object';
}

/** Apply a server `changes` list to the confirmed document. */
export function applyChanges(doc: Doc, changes: EntityChange[], effects?: ChangeSideEffects): Doc {
  const d = new Draft(doc);
  for (const ch of changes) {
    const id = ch.id == null ? '' : String(ch.id);
    if (ch.entity === 'node') {
      if (ch.action === 'deleted' || ch.action === 'removed') {
        d.deleteNode(id);
        // Edges are deleted (and logged) one by one by the server; dropping
        // dangling edges here keeps the view consistent if one is filtered.
        d.deleteEdgesTouching(id);
      } else if (isRecord(ch.data)) {
        const data = ch.data as Partial<CanvasNode>;
        const prev = d.getNode(id || data.id!);
        d.setNode(normalizeNode({ ...(prev ?? {}), ...data, id: String(data.id ?? id) }));
      }
    } else if (ch.entity === 'edge') {
      if (ch.action === 'deleted' || ch.action === 'removed') {
        d.deleteEdge(id);
      } else if (isRecord(ch.data)) {
        const data = ch.data as Partial<CanvasEdge>;
        const prev = d.getEdge(id || data.id!);
        // Server edge data carries source and target; the previous edge fills them for partial updates.
        d.setEdge(normalizeEdge({ ...(prev ?? {}), ...data, id: String(data.id ?? id) } as Partial<CanvasEdge> & { id: string; source: string; target: string }));
      }
    } else if (ch.entity === 'canvas') {
      if (effects && isRecord(ch.data)) effects.canvas = { ...(effects.canvas ?? {}), ...ch.data };
    } else if (ch.entity === 'member') {
      if (effects) {
        const data = ch.data as { user?: UserRef; role?: string } | null;
        const user = data?.user ?? (ch.id != null ? { id: Number(ch.id), username: '' } : null);
        if (user) {
          (effects.members ??= []).push({
            user,
            role: ch.action === 'deleted' || ch.action === 'removed' ? null : data?.role ?? null,
          });
        }
      }
    }
  }
  return d.result();
}

export interface OptimisticContext {
  user: UserRef | null;
  /** used to give optimistic entities without a client-chosen id a stable id */
  clientOpId: string;
}

function createNodeFromBody(body: NodeCreateBody, ctx: OptimisticContext, fallbackId: string): CanvasNode {
  return normalizeNode({
    id: body.id ?? fallbackId,
    content: body.content ?? '',
    kind: body.kind ?? 'note',
    x: body.x,
    y: body.y,
    weight: body.weight ?? 1,
    tags: body.tags ?? [],
    pinned: body.pinned ?? false,
    sensitivity: body.sensitivity ?? 'public',
    created_by: ctx.user,
    author_kind: 'user',
    version: 0,
  });
}

/**
 * Apply one op optimistically. Ops that reference missing entities are
 * no-ops locally; the server will reject them and the effect disappears.
 */
export function applyOp(doc: Doc, op: Op, ctx: OptimisticContext): Doc {
  const d = new Draft(doc);
  applyOpToDraft(d, op, ctx, 0);
  return d.result();
}

/**
 * Apply a queue of ops in order on one working copy: each map is cloned at
 * most once however many ops there are (the rebase of pending ops onto every
 * server change), instead of once per op.
 */
export function applyOps(doc: Doc, ops: Iterable<{ op: Op; ctx: OptimisticContext }>): Doc {
  const d = new Draft(doc);
  for (const { op, ctx } of ops) applyOpToDraft(d, op, ctx, 0);
  return d.result();
}

function applyOpToDraft(d: Draft, op: Op, ctx: OptimisticContext, depth: number): void {
  switch (op.type) {
    case 'node.create': {
      const node = createNodeFromBody(op.node, ctx, `pending-node-${ctx.clientOpId}-${depth}`);
      if (!d.getNode(node.id)) d.setNode(node);
      return;
    }
    case 'node.update': {
      const prev = d.getNode(op.id);
      if (prev) d.setNode({ ...prev, ...op.fields });
      return;
    }
    case 'node.move': {
      const prev = d.getNode(op.id);
      if (prev && (prev.x !== op.x || prev.y !== op.y)) d.setNode({ ...prev, x: op.x, y: op.y });
      return;
    }
    case 'node.delete': {
      d.deleteNode(op.id);
      d.deleteEdgesTouching(op.id);
      return;
    }
    case 'node.archive': {
      const prev = d.getNode(op.id);
      const archived = op.archived ?? true;
      if (prev && prev.archived !== archived) d.setNode({ ...prev, archived });
      return;
    }
    case 'node.supersede': {
      const prev = d.getNode(op.id);
      if (!prev) return;
      const created = createNodeFromBody(op.node, ctx, `pending-node-${ctx.clientOpId}-${depth}`);
      if (!d.getNode(created.id)) d.setNode(created);
      d.setNode({ ...prev, superseded_by: created.id });
      d.setEdge(
        normalizeEdge({
          id: `pending-edge-${ctx.clientOpId}-${depth}`,
          source: created.id,
          target: prev.id,
          relation: 'supersedes',
          label: '',
          created_by: ctx.user,
        }),
      );
      return;
    }
    case 'edge.create': {
      const { edge } = op;
      if (!d.getNode(edge.source) || !d.getNode(edge.target)) return;
      const id = edge.id ?? `pending-edge-${ctx.clientOpId}-${depth}`;
      if (d.getEdge(id)) return;
      d.setEdge(
        normalizeEdge({
          id,
          source: edge.source,
          target: edge.target,
          relation: edge.relation,
          label: edge.label ?? '',
          created_by: ctx.user,
        }),
      );
      return;
    }
    case 'edge.update': {
      const prev = d.getEdge(op.id);
      if (prev) d.setEdge({ ...prev, ...op.fields });
      return;
    }
    case 'edge.delete': {
      d.deleteEdge(op.id);
      return;
    }
    case 'batch': {
      op.ops.forEach((sub, i) => applyOpToDraft(d, sub, ctx, depth * 1000 + i + 1));
      return;
    }
    default:
      return;
  }
}

/** Ids of the nodes and edges an op touches (for "unsaved" markers). */
export function touchedIds(op: Op, out: Set<string> = new Set()): Set<string> {
  switch (op.type) {
    case 'node.create':
      if (op.node.id) out.add(op.node.id);
      break;
    case 'node.supersede':
      out.add(op.id);
      if (op.node.id) out.add(op.node.id);
      break;
    case 'edge.create':
      if (op.edge.id) out.add(op.edge.id);
      break;
    case 'batch':
      op.ops.forEach((o) => touchedIds(o, out));
      break;
    default:
      out.add(op.id);
  }
  return out;
}
