import i18n from 'i18next';
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
  if (relation in RELATION_LABELS) return i18n.t(`canvas:relations.${relation}`);
  return relation.replace(/_/g, ' ');
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
  | { type: 'node.update'; id: string; fields: NodeFields; base_version?: number | null }
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
  data: unknown;
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

/** What a person is doing right now (presence `editing` / `dragging`, docs/protocol.md). */
export interface PresenceActivity {
  editing: string | null;
  dragging: { id: string; x: number; y: number } | null;
}

// ---------------------------------------------------------------- chat (docs/protocol.md "Chat", docs/api.md "Chat")

export interface Conversation {
  id: number;
  canvas_id: number;
  title: string;
  summary: string;
  created_at: string;
  updated_at: string;
}

export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'error' | 'pending' | string;

export interface ChatMessage {
  id: number;
  conversation_id: number;
  role: 'user' | 'assistant' | 'tool' | 'system' | string;
  source: string;
  content: string;
  status: MessageStatus;
  error: string | { code?: string; message?: string } | null;
  /** failed replies: the stored error code (e.g. MODEL_NOT_CONFIGURED), so a reload shows the same card */
  error_code?: string | null;
  token_count: number;
  model_request_id: number | null;
  created_at: string;
  /** assistant: handle → node id of the turn (the ones this user may see), for `[n3]` links */
  handles?: Record<string, string>;
  /** assistant, in the message list: the agent's tool calls of the turn (as the agent.action frames) */
  agent_actions?: ChatAgentAction[];
  /** user, in the message list: the facts captured from it, in every state */
  suggestions?: Suggestion[];
}

export interface ChatAgentAction {
  conversation_id: number;
  message_id: number;
  round: number;
  call_id: string;
  tool: string;
  outcome: 'applied' | 'proposed' | 'read' | 'refused' | string;
  error: { code: string; message: string; field: string | null } | null;
  proposal_id: number | null;
  revision: number | null;
}

export interface IncludedNode {
  node_id: string;
  handle: string;
  rank: number;
  reason: string;
  tokens: number;
  placeholder?: boolean;
  effective_distance?: number | null;
  match_score?: number | null;
}

export interface ExcludedNode {
  node_id: string;
  reason: string;
  detail?: string;
}

export type LayerName = 'system' | 'canvas' | 'summary' | 'recent' | 'question';
export const LAYERS: LayerName[] = ['system', 'canvas', 'summary', 'recent', 'question'];

export interface ContextReport {
  budget: Record<string, number>;
  layer_tokens: Record<string, number>;
  total_tokens: number;
  included: IncludedNode[];
  excluded: ExcludedNode[];
  excluded_counts: Record<string, number>;
  truncations: { layer: string; item_id: string; original_tokens: number; kept_tokens: number }[];
  notes: string[];
}

export interface Suggestion {
  id: number;
  conversation_id: number;
  message_id: number;
  content: string;
  kind: NodeKind;
  subject: string;
  value: string;
  reason: string;
  /** suggested from what the message said ("internal", "内部信息"); absent from older servers */
  sensitivity?: Sensitivity;
  status: 'pending' | 'accepted' | 'dismissed' | string;
  supersede_node_id: string | null;
  created_node_id: string | null;
  /** the subject as said ("JWT expiry"); may be empty */
  label?: string;
  /** the value it replaces (old → new) */
  previous_value?: string | null;
  action?: 'create' | 'supersede' | 'conflicts_with';
  source?: 'rules' | 'model' | string;
  /** the retired node's text when the suggestion was made */
  supersede_content?: string | null;
  conflict_node_id?: string | null;
  conflict_content?: string | null;
  /** the short conflict note the chat shows */
  note?: string | null;
  /** retiring the node needs confirm: a pinned node, or one more restricted than this fact */
  warnings?: ('pinned' | 'more_sensitive' | string)[];
}

export interface ModelRequestRecord {
  id: number;
  conversation_id: number | null;
  message_id: number | null;
  purpose: string;
  model: string;
  base_url: string;
  strategy: string;
  messages: { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string; name?: string }[];
  tools: { type?: string; function?: { name?: string; description?: string } }[] | null;
  layer_tokens: Record<string, number>;
  budget: number;
  included_node_ids: string[];
  report: {
    strategy?: string;
    budget?: Record<string, number>;
    layer_tokens?: Record<string, number>;
    total_tokens?: number;
    included_nodes?: IncludedNode[];
    excluded_nodes?: ExcludedNode[];
    excluded_counts?: Record<string, number>;
    truncations?: ContextReport['truncations'];
    notes?: string[];
    redactions?: Record<string, number>;
  } | null;
  response_text: string;
  tool_calls: unknown;
  usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; [k: string]: unknown } | null;
  latency_ms: number | null;
  error: string | null;
  created_at: string;
}

export interface LLMStatus {
  configured: boolean;
  model: string | null;
  context_window: number;
  max_output_tokens: number;
  help: string | null;
}

// ---------------------------------------------------------------- agent (docs/api.md "Agent proposals")

export type AgentMode = 'off' | 'propose' | 'auto';
export interface AgentPolicyValue {
  mode: AgentMode;
  scope: 'all' | 'tagged';
  protect_pinned: boolean;
  allow_archive: boolean;
  /** The MCP server and the OpenAI-compatible endpoint may use this canvas (docs/integrations.md). */
  external_access: boolean;
}

export interface ProposalFieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface ProposalNodeRef {
  id: string;
  content: string;
  kind: string;
  version: number;
  sensitivity?: string;
}

export interface Proposal {
  id: number;
  canvas_id: number;
  status: 'pending' | 'approved' | 'rejected' | 'failed' | string;
  tool: string;
  summary: string;
  diff: {
    target?: ProposalNodeRef;
    node?: NodeCreateBody & { id: string };
    edge?: { id?: string; source: string; target: string; relation: Relation | string; label?: string };
    source?: ProposalNodeRef;
    fields: ProposalFieldChange[];
  };
  op: Op;
  stale: boolean;
  stale_reason: string | null;
  requested_by: UserRef | null;
  conversation_id: number | null;
  message_id: number | null;
  agent_run_id: string | null;
  decided_by: UserRef | null;
  decided_at: string | null;
  forced: boolean;
  result_revision: number | null;
  error: ApiErrorBody | null;
  created_at: string;
}

// ---------------------------------------------------------------- history (docs/api.md "History, undo and JSON Canvas")

export interface HistoryActor {
  kind: 'user' | 'agent' | 'system' | string;
  user: { id: number | null; username: string } | null;
  on_behalf_of: { id: number | null; username: string } | null;
  approved_by: UserRef | null;
  conversation_id: number | null;
  reason: string | null;
}

export interface TimelineEntry {
  revision: number;
  seq: number;
  at: string;
  actor: HistoryActor;
  op_type: string;
  reason: string | null;
  entity: 'node' | 'edge' | 'canvas' | 'member' | string;
  action: 'created' | 'updated' | 'deleted' | 'removed' | string;
  target_id: string;
  node_id: string | null;
  fields: string[];
  diff: { field: string; before: unknown; after: unknown }[];
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  summary: string;
  undo_of: { kind: 'undo' | 'redo'; revision: number } | null;
  revertible?: boolean;
  /** edges: first line of each end's text ('' when not visible to you) */
  source_text?: string;
  target_text?: string;
}

export interface ChainItem {
  id: string;
  position: 'before' | 'current' | 'after';
  deleted: boolean;
  content: string;
  kind: string | null;
  superseded_by: string | null;
}

export interface NodeTimeline {
  node: CanvasNode | null;
  deleted: boolean;
  chain: ChainItem[];
  entries: TimelineEntry[];
}

export interface AuditEntry extends TimelineEntry {
  hash: string;
  prev_hash: string;
  agent_run_id: string | null;
  message_id: number | null;
}

export interface AuditPage {
  revision: number;
  items: AuditEntry[];
  next_before: number | null;
  actors: { id: number; username: string }[];
}

export interface AuditFilters {
  actor?: number | null;
  actorKind?: string;
  nodeId?: string | null;
  since?: string | null;
  until?: string | null;
  before?: number | null;
  limit?: number;
}

export interface ChainReport {
  ok: boolean;
  entries: number;
  problem: { revision: number | null; seq: number | null; problem: string; expected: string | null; stored: string | null } | null;
}

export interface ActivityPage {
  revision: number;
  items: TimelineEntry[];
  next_before: number | null;
}

export interface UndoResult {
  kind: 'undo' | 'redo';
  inverted_revision: number;
  revision: number | null;
  applied: { entity: string; id: string; action: string; fields: string[] }[];
  skipped: {
    entity: string;
    id: string;
    field: string | null;
    reason: string;
    by: { kind: string; username: string; label: string } | null;
    revision: number | null;
    summary: string;
  }[];
  can_undo: boolean;
  can_redo: boolean;
}

export interface UndoStatus {
  can_undo: boolean;
  can_redo: boolean;
  undo_revision: number | null;
  redo_revision: number | null;
}

export interface ImportResult {
  canvas: CanvasSummary;
  revision: number;
  nodes: number;
  edges: number;
  id_map: Record<string, string>;
  unknown_keys: { where: string; keys: string[] }[];
  notes: string[];
}
