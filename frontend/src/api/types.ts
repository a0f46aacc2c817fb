// Shapes shared by the REST API and the WebSocket protocol (docs/protocol.md).

export type Role = 'owner' | 'editor' | 'viewer';
export type NodeKind = 'fact' | 'requirement' | 'decision' | 'config' | 'question' | 'note';
export type Sensitivity = 'public' | 'internal' | 'secret';
export type Relation = 'depends_on' | 'causes' | 'conflicts_with' | 'supersedes' | 'relates_to';
export type AuthorKind = 'user' | 'agent' | string;

export const NODE_KINDS: NodeKind[] = ['fact', 'requirement', 'decision', 'config', 'question', 'note'];
export const SENSITIVITIES: Sensitivity[] = ['public', 'internal', 'secret'];
export const RELATIONS: Relation[] = ['depends_on', 'causes', 'conflicts_with', 'supersedes', 'relates_to'];
export const ROLES: Role[] = ['owner', 'editor', 'viewer'];

export const RELATION_LABELS: Record<Relation, string> = {
  depends_on: 'depends on',
  causes: 'causes',
  conflicts_with: 'conflicts with',
  supersedes: 'supersedes',
  relates_to: 'relates to',
};

export function relationLabel(relation: string): string {
  return (RELATION_LABELS as Record<string, string>)[relation] ?? relation.replace(/_/g, ' ');
}

export const LIMITS = {
  contentMax: 10_000,
  weightMin: 0.1,
  weightMax: 10,
  tagsMax: 20,
  tagMaxLen: 40,
  coordAbsMax: 1_000_000,
};

export interface UserRef {
  id: number;
  username: string;
}

export interface CanvasNode {
  id: string;
  content: string;
  kind: NodeKind;
  x: number;
  y: number;
  weight: number;
  tags: string[];
  pinned: boolean;
  sensitivity: Sensitivity;
  superseded_by: string | null;
  archived: boolean;
  created_by: UserRef | null;
  author_kind: AuthorKind;
  provenance: unknown;
  version: number;
  created_at: string | null;
  updated_at: string | null;
}

export interface CanvasEdge {
  id: string;
  source: string;
  target: string;
  relation: Relation;
  label: string;
  created_by: UserRef | null;
  version: number;
  created_at: string | null;
  updated_at: string | null;
}

export interface AgentPolicy {
  [key: string]: unknown;
}

export interface CanvasSummary {
  id: number;
  name: string;
  description: string;
  role: Role;
  revision: number;
  member_count: number;
  created_at: string;
  updated_at: string;
  agent_policy?: AgentPolicy;
}

export interface Member {
  user: UserRef;
  role: Role;
}

export interface Snapshot {
  revision: number;
  nodes: CanvasNode[];
  edges: CanvasEdge[];
}

export interface HistoryEntry {
  revision: number;
  at: string;
  actor: unknown;
  op_type: string;
  action: string;
  fields: string[] | null;
  before: unknown;
  after: unknown;
}

export interface ApiErrorBody {
  code: string;
  message: string;
  field: string | null;
}

// ---------------------------------------------------------------- operations

export interface NodeCreateBody {
  id?: string;
  content: string;
  kind?: NodeKind;
  x: number;
  y: number;
  weight?: number;
  tags?: string[];
  pinned?: boolean;
  sensitivity?: Sensitivity;
}

export type NodeFields = Partial<Pick<CanvasNode, 'content' | 'kind' | 'x' | 'y' | 'weight' | 'tags' | 'pinned' | 'sensitivity'>>;
export type EdgeFields = Partial<Pick<CanvasEdge, 'relation' | 'label'>>;

export type Op =
  | { type: 'node.create'; node: NodeCreateBody }
  | { type: 'node.update'; id: string; fields: NodeFields }
  | { type: 'node.move'; id: string; x: number; y: number }
  | { type: 'node.delete'; id: string }
  | { type: 'node.supersede'; id: string; node: NodeCreateBody }
  | { type: 'node.archive'; id: string; archived?: boolean }
  | { type: 'edge.create'; edge: { id?: string; source: string; target: string; relation: Relation; label?: string } }
  | { type: 'edge.update'; id: string; fields: EdgeFields }
  | { type: 'edge.delete'; id: string }
  | { type: 'batch'; ops: Op[] };

// ---------------------------------------------------------------- changes

export type ChangeAction = 'created' | 'updated' | 'deleted' | 'removed';

export interface EntityChange {
  entity: 'node' | 'edge' | 'canvas' | 'member' | string;
  action: ChangeAction | string;
  id: string | number | null;
  fields?: string[];
  data: any;
}

export interface Actor {
  kind: string;
  user: UserRef | null;
  on_behalf_of?: UserRef | null;
  conversation_id?: unknown;
}

export interface ChangeEvent {
  type: 'change';
  revision: number;
  client_op_id?: string | null;
  actor?: Actor;
  at?: string;
  changes: EntityChange[];
}

export interface PresenceViewport {
  x: number;
  y: number;
  zoom: number;
  width: number;
  height: number;
}

export interface PresenceCursor {
  x: number;
  y: number;
}
