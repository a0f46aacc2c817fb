// Copy and paste of nodes: what goes on the clipboard, and the ops a paste
// sends (new ids, the edges between the copied nodes, one batch through the
// normal write path, placed as a group at a free spot near a point).
import type { CanvasEdge, CanvasNode, Op, Role, Sensitivity } from '../../api/types';
import type { Doc as CanvasDoc } from '../../sync/apply';
import { findFreeSpotAround } from '../placement';
import { weightStyle } from '../kinds';

export const CLIPBOARD_MIME = 'application/x-canvasweb+json';
const FORMAT = 'canvasweb-nodes/1';
/** a paste larger than this many nodes is refused (the server's batch cap is the real limit) */
export const MAX_PASTE_NODES = 200;

export interface CopiedNode {
  ref: string;
  content: string;
  kind: CanvasNode['kind'];
  dx: number;
  dy: number;
  weight: number;
  tags: string[];
  pinned: boolean;
  sensitivity: Sensitivity;
}

export interface CopiedEdge {
  source: string;
  target: string;
  relation: CanvasEdge['relation'];
  label: string;
}

export interface ClipboardPayload {
  format: typeof FORMAT;
  nodes: CopiedNode[];
  edges: CopiedEdge[];
}

/** The selected nodes (positions relative to their top-left corner) and the edges between them. */
export function copySelection(doc: CanvasDoc, nodeIds: Iterable<string>): ClipboardPayload | null {
  const nodes = [...nodeIds].map((id) => doc.nodes.get(id)).filter((n): n is CanvasNode => !!n);
  if (!nodes.length) return null;
  const minX = Math.min(...nodes.map((n) => n.x));
  const minY = Math.min(...nodes.map((n) => n.y));
  const ids = new Set(nodes.map((n) => n.id));
  const edges: CopiedEdge[] = [];
  for (const e of doc.edges.values()) {
    if (ids.has(e.source) && ids.has(e.target)) edges.push({ source: e.source, target: e.target, relation: e.relation, label: e.label ?? '' });
  }
  return {
    format: FORMAT,
    nodes: nodes.map((n) => ({
      ref: n.id,
      content: n.content,
      kind: n.kind,
      dx: n.x - minX,
      dy: n.y - minY,
      weight: n.weight,
      tags: [...(n.tags ?? [])],
      pinned: n.pinned,
      sensitivity: n.sensitivity,
    })),
    edges,
  };
}

/** Plain text for other apps: one paragraph per node. */
export function payloadText(payload: ClipboardPayload): string {
  return payload.nodes.map((n) => n.content).join('\n\n');
}

/** A payload read back from the clipboard, or null if it is not ours or is malformed. */
export function parsePayload(raw: string | null | undefined): ClipboardPayload | null {
  if (!raw) return null;
  try {
    const data = JSON.parse(raw) as Partial<ClipboardPayload>;
    if (data?.format !== FORMAT || !Array.isArray(data.nodes) || !Array.isArray(data.edges)) return null;
    const okNode = (n: CopiedNode) =>
      n && typeof n.ref === 'string' && typeof n.content === 'string' && Number.isFinite(n.dx) && Number.isFinite(n.dy);
    if (!data.nodes.every(okNode)) return null;
    return data as ClipboardPayload;
  } catch {
    return null;
  }
}

const SENSITIVITY_RANK: Record<Sensitivity, number> = { public: 0, internal: 1, secret: 2 };
const ROLE_MAX: Record<Role, Sensitivity> = { viewer: 'public', editor: 'internal', owner: 'secret' };

/** No more sensitive than the pasting user may see on this canvas (a secret copied as owner elsewhere). */
function capSensitivity(s: Sensitivity, role: Role | null): Sensitivity {
  const max = ROLE_MAX[role ?? 'viewer'];
  return SENSITIVITY_RANK[s] > SENSITIVITY_RANK[max] ? max : s;
}

export interface PastePlan {
  ops: Op[];
  nodeIds: string[];
  /** nodes whose sensitivity was lowered to what the user may set here */
  lowered: number;
}

/** The ops that paste `payload` as a group centred near `point`, clear of existing nodes. */
export function planPaste(
  payload: ClipboardPayload,
  doc: CanvasDoc,
  point: { x: number; y: number },
  role: Role | null,
  newId: () => string,
  measure?: (id: string) => { width?: number; height?: number } | undefined,
): PastePlan {
  const width = Math.max(...payload.nodes.map((n) => n.dx + weightStyle(n.weight ?? 1).width));
  const height = Math.max(...payload.nodes.map((n) => n.dy + 110));
  const corner = findFreeSpotAround(point, doc.nodes.values(), { w: width, h: height }, measure);
  const idFor = new Map(payload.nodes.map((n) => [n.ref, newId()]));
  let lowered = 0;
  const nodeOps: Op[] = payload.nodes.map((n) => {
    const sensitivity = capSensitivity(n.sensitivity ?? 'public', role);
    if (sensitivity !== (n.sensitivity ?? 'public')) lowered += 1;
    return {
      type: 'node.create',
      node: {
        id: idFor.get(n.ref),
        content: n.content,
        kind: n.kind,
        x: Math.round(corner.x + n.dx),
        y: Math.round(corner.y + n.dy),
        weight: n.weight,
        tags: n.tags,
        pinned: n.pinned,
        sensitivity,
      },
    };
  });
  const edgeOps: Op[] = payload.edges
    .filter((e) => idFor.has(e.source) && idFor.has(e.target))
    .map((e) => ({
      type: 'edge.create',
      edge: { id: newId(), source: idFor.get(e.source) as string, target: idFor.get(e.target) as string, relation: e.relation, label: e.label },
    }));
  return { ops: [...nodeOps, ...edgeOps], nodeIds: [...idFor.values()], lowered };
}
