// Words for change-log entries (node timeline, activity feed).
import type { HistoryActor, TimelineEntry } from '../api/types';

/** "alice", "agent for alice", "system". */
export function actorLabel(actor: HistoryActor | null | undefined): string {
  if (!actor) return 'unknown';
  const who = actor.on_behalf_of?.username ?? actor.user?.username ?? null;
  if (actor.kind === 'agent') return who ? `agent for ${who}` : 'agent';
  if (actor.kind === 'system') return who ? `system (${who})` : 'system';
  return who ?? 'deleted user';
}

const FIELD_WORDS: Record<string, string> = {
  content: 'text',
  kind: 'kind',
  weight: 'weight',
  tags: 'tags',
  pinned: 'pin',
  sensitivity: 'sensitivity',
  relation: 'relation',
  label: 'label',
};

/** A short verb phrase: "edited text, tags", "moved", "superseded", "added". */
export function describeEntry(e: TimelineEntry): string {
  const fields = e.fields ?? [];
  if (e.entity === 'node') {
    if (e.action === 'created') return e.op_type === 'node.supersede' ? 'added a new version' : e.reason === 'revert' ? 'restored' : 'added';
    if (e.action === 'deleted') return 'deleted';
    if (e.action === 'removed') return 'hid it from you';
    if (fields.includes('superseded_by')) {
      const after = e.after?.superseded_by;
      return after ? 'superseded' : 'un-superseded';
    }
    if (fields.length === 1 && fields[0] === 'archived') return e.after?.archived ? 'archived' : 'unarchived';
    const rest = fields.filter((f) => f !== 'x' && f !== 'y');
    const moved = fields.includes('x') || fields.includes('y');
    if (!rest.length && moved) return 'moved';
    const words = rest.map((f) => (f === 'archived' ? (e.after?.archived ? 'archived' : 'unarchived') : FIELD_WORDS[f] ?? f));
    return `edited ${words.join(', ')}${moved ? ' and moved' : ''}`;
  }
  if (e.entity === 'edge') {
    if (e.action === 'created') return 'linked';
    if (e.action === 'deleted') return 'removed a link';
    if (e.action === 'removed') return 'hid a link from you';
    return `edited a link (${fields.map((f) => FIELD_WORDS[f] ?? f).join(', ')})`;
  }
  if (e.entity === 'canvas') {
    if (fields.includes('agent_policy')) return 'changed the agent policy';
    if (fields.includes('name')) return 'renamed the canvas';
    return e.action === 'created' ? 'created the canvas' : 'changed the canvas';
  }
  if (e.entity === 'member') {
    if (e.action === 'created') return 'added a member';
    if (e.action === 'deleted') return 'removed a member';
    return 'changed a member';
  }
  return e.action;
}

export const REASON_TEXT: Record<string, string> = {
  revert: 'revert',
  undo: 'undo',
  redo: 'redo',
  import: 'import',
};

export function reasonBadge(e: TimelineEntry): string | null {
  if (!e.reason) return null;
  if ((e.reason === 'undo' || e.reason === 'redo') && e.undo_of) return `${e.reason} of rev ${e.undo_of.revision}`;
  return REASON_TEXT[e.reason] ?? e.reason;
}

/** An edge entry seen from one of its nodes: "depends on ‘other’" or "‘other’ depends on this". */
export function edgeFromNode(e: TimelineEntry, nodeId: string): string {
  const data = (e.after ?? e.before ?? {}) as { source?: string; target?: string; relation?: string; label?: string };
  const relation = String(data.relation ?? '').replace(/_/g, ' ');
  const label = data.label ? ` “${data.label}”` : '';
  const quote = (text: string | undefined) => (text ? `‘${text.length > 60 ? `${text.slice(0, 59)}…` : text}’` : 'a node you cannot see');
  if (data.source === nodeId) return `${relation}${label} ${quote(e.target_text)}`.trim();
  if (data.target === nodeId) return `${quote(e.source_text)} ${relation}${label} this`.trim();
  return `${quote(e.source_text)} ${relation}${label} ${quote(e.target_text)}`.trim();
}
