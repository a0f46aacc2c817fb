// Words for change-log entries (node timeline, activity feed, audit view), through the catalogues
// (history namespace) so they follow the UI language. Quotes live in the catalogue: ‘…’ in English,
// “…” in Chinese, so a CJK snippet is never wrapped in Latin punctuation by code.
import i18n from 'i18next';
import type { HistoryActor, TimelineEntry } from '../api/types';

const t = (key: string, options?: Record<string, unknown>) => i18n.t(`history:${key}`, options);

/** "alice", "agent for alice", "system". */
export function actorLabel(actor: HistoryActor | null | undefined): string {
  if (!actor) return t('actor.unknown');
  const who = actor.on_behalf_of?.username ?? actor.user?.username ?? null;
  if (actor.kind === 'agent') return who ? t('actor.agentFor', { name: who }) : t('actor.agent');
  if (actor.kind === 'system') return who ? t('actor.systemFor', { name: who }) : t('actor.system');
  return who ?? t('actor.deletedUser');
}

// Catalogue keys (history:fields.*) for the fields named in "edited …".
const FIELD_KEYS: Record<string, string> = {
  content: 'fields.content',
  kind: 'fields.kind',
  weight: 'fields.weight',
  tags: 'fields.tags',
  pinned: 'fields.pinned',
  sensitivity: 'fields.sensitivity',
  relation: 'fields.relation',
  label: 'fields.label',
  archived: 'fields.archived',
};

function fieldWord(field: string, e: TimelineEntry): string {
  if (field === 'archived') return e.after?.archived ? t('fields.archived') : t('fields.unarchived');
  const key = FIELD_KEYS[field];
  return key ? t(key) : field.replace(/_/g, ' ');
}

function list(words: string[]): string {
  return words.join(t('listSeparator'));
}

/** A short verb phrase: "edited text, tags", "moved", "superseded", "added". */
export function describeEntry(e: TimelineEntry): string {
  const fields = e.fields ?? [];
  if (e.entity === 'node') {
    if (e.action === 'created') return e.op_type === 'node.supersede' ? t('node.newVersion') : e.reason === 'revert' ? t('node.restored') : t('node.added');
    if (e.action === 'deleted') return t('node.deleted');
    if (e.action === 'removed') return t('node.hidden');
    if (fields.includes('superseded_by')) return e.after?.superseded_by ? t('node.superseded') : t('node.unsuperseded');
    if (fields.length === 1 && fields[0] === 'archived') return e.after?.archived ? t('node.archived') : t('node.unarchived');
    const rest = fields.filter((f) => f !== 'x' && f !== 'y');
    const moved = fields.includes('x') || fields.includes('y');
    if (!rest.length && moved) return t('node.moved');
    const fieldsText = list(rest.map((f) => fieldWord(f, e)));
    return moved ? t('node.editedAndMoved', { fields: fieldsText }) : t('node.edited', { fields: fieldsText });
  }
  if (e.entity === 'edge') {
    if (e.action === 'created') return t('edge.linked');
    if (e.action === 'deleted') return t('edge.deleted');
    if (e.action === 'removed') return t('edge.hidden');
    return t('edge.edited', { fields: list(fields.map((f) => fieldWord(f, e))) });
  }
  if (e.entity === 'canvas') {
    if (fields.includes('agent_policy')) return t('canvas.policy');
    if (fields.includes('name')) return t('canvas.renamed');
    return e.action === 'created' ? t('canvas.created') : t('canvas.changed');
  }
  if (e.entity === 'member') {
    if (e.action === 'created') return t('member.added');
    if (e.action === 'deleted') return t('member.removed');
    return t('member.changed');
  }
  return e.action;
}

// Catalogue keys (history:reasons.*) for the reason chip.
const REASON_KEYS: Record<string, string> = {
  revert: 'reasons.revert',
  undo: 'reasons.undo',
  redo: 'reasons.redo',
  import: 'reasons.import',
};

export function reasonBadge(e: TimelineEntry): string | null {
  if (!e.reason) return null;
  if (e.reason === 'undo' && e.undo_of) return t('reasons.undoOf', { revision: e.undo_of.revision });
  if (e.reason === 'redo' && e.undo_of) return t('reasons.redoOf', { revision: e.undo_of.revision });
  const key = REASON_KEYS[e.reason];
  return key ? t(key) : e.reason;
}

function relationWord(relation: string): string {
  const key = `canvas:relations.${relation}`;
  return i18n.exists(key) ? i18n.t(key) : relation.replace(/_/g, ' ');
}

/** An edge entry seen from one of its nodes: "depends on ‘other’" or "‘other’ depends on this". */
export function edgeFromNode(e: TimelineEntry, nodeId: string): string {
  const data = (e.after ?? e.before ?? {}) as { source?: string; target?: string; relation?: string; label?: string };
  const relation = data.relation ? relationWord(String(data.relation)) : '';
  const link = data.label ? t('edge.withLabel', { relation, label: data.label }) : relation;
  const quote = (text: string | undefined) =>
    text ? t('edge.quote', { text: text.length > 60 ? `${text.slice(0, 59)}…` : text }) : t('edge.hiddenNode');
  if (data.source === nodeId) return t('edge.outgoing', { link, other: quote(e.target_text) }).trim();
  if (data.target === nodeId) return t('edge.incoming', { link, other: quote(e.source_text) }).trim();
  return t('edge.between', { link, source: quote(e.source_text), target: quote(e.target_text) }).trim();
}
