import { describe, expect, it } from 'vitest';
import i18n from 'i18next';
import type { TimelineEntry, UndoResult } from '../api/types';
import { actorLabel, describeEntry, edgeFromNode, reasonBadge } from './describe';
import { dayBoundary } from './AuditDialog';
import { filenameFromDisposition, safeFileName } from './jsonCanvas';
import { summarizeUndo } from './useUndoRedo';

function entry(extra: Partial<TimelineEntry>): TimelineEntry {
  return {
    revision: 5,
    seq: 0,
    at: '2026-11-30T12:00:00Z',
    actor: { kind: 'user', user: { id: 1, username: 'alice' }, on_behalf_of: null, approved_by: null, conversation_id: null, reason: null },
    op_type: 'node.update',
    reason: null,
    entity: 'node',
    action: 'updated',
    target_id: 'n1',
    node_id: 'n1',
    fields: [],
    diff: [],
    before: null,
    after: null,
    summary: '',
    undo_of: null,
    ...extra,
  };
}

describe('history words', () => {
  it('names people and the agent acting for a person', () => {
    expect(actorLabel(entry({}).actor)).toBe('alice');
    const agent = { kind: 'agent', user: { id: 1, username: 'alice' }, on_behalf_of: { id: 1, username: 'alice' }, approved_by: { id: 2, username: 'bob' }, conversation_id: 12, reason: null };
    expect(actorLabel(agent)).toBe('agent for alice');
    expect(actorLabel({ ...agent, kind: 'user', user: null, on_behalf_of: null })).toBe('deleted user');
  });

  it('describes what changed', () => {
    expect(describeEntry(entry({ action: 'created', op_type: 'node.create' }))).toBe('added');
    expect(describeEntry(entry({ action: 'created', op_type: 'node.supersede' }))).toBe('added a new version');
    expect(describeEntry(entry({ fields: ['x', 'y'] }))).toBe('moved');
    expect(describeEntry(entry({ fields: ['content', 'tags'] }))).toBe('edited text, tags');
    expect(describeEntry(entry({ fields: ['superseded_by'], after: { superseded_by: 'n2' } }))).toBe('superseded');
    expect(describeEntry(entry({ fields: ['archived'], after: { archived: true } }))).toBe('archived');
    expect(describeEntry(entry({ entity: 'edge', action: 'created' }))).toBe('linked');
    expect(reasonBadge(entry({ reason: 'undo', undo_of: { kind: 'undo', revision: 4 } }))).toBe('undo of rev 4');
    expect(reasonBadge(entry({ reason: 'revert' }))).toBe('revert');
  });

  it('summarizes undo results, naming what was skipped and why', () => {
    const base: UndoResult = { kind: 'undo', inverted_revision: 7, revision: 9, applied: [{ entity: 'node', id: 'n1', action: 'updated', fields: ['weight'] }], skipped: [], can_undo: true, can_redo: true };
    expect(summarizeUndo(base)).toEqual({ kind: 'success', title: 'Undone', message: 'Undid your change from revision 7.' });
    const partial = summarizeUndo({
      ...base,
      skipped: [{ entity: 'node', id: 'n1', field: 'content', reason: 'bob changed content since', by: { kind: 'user', username: 'bob', label: 'bob' }, revision: 8, summary: '数据库端口是 5433' }],
    });
    expect(partial.kind).toBe('info');
    expect(partial.message).toContain('content of “数据库端口是 5433”: bob changed it since (rev 8)');
    const none = summarizeUndo({ ...base, revision: null, applied: [], skipped: [{ entity: 'node', id: 'n1', field: null, reason: 'the node was deleted since', by: null, revision: null, summary: 'x' }] });
    expect(none.title).toBe('Skipped');
    expect(none.message).toContain('the node was deleted since');
  });

  it('picks the export file name', () => {
    expect(filenameFromDisposition('attachment; filename="Launch-plan.canvas"', 'x.canvas')).toBe('Launch-plan.canvas');
    expect(filenameFromDisposition("attachment; filename*=utf-8''%E5%8F%91%E5%B8%83.canvas", 'x.canvas')).toBe('发布.canvas');
    expect(filenameFromDisposition(null, 'x.canvas')).toBe('x.canvas');
    expect(safeFileName('发布 / 计划')).toBe('发布   计划.canvas');
  });
});

describe('edges seen from a node', () => {
  const link = entry({
    entity: 'edge',
    action: 'created',
    op_type: 'edge.create',
    target_id: 'e1',
    node_id: 'a',
    after: { source: 'a', target: 'b', relation: 'depends_on', label: '' },
    source_text: '预算上限二十万',
    target_text: 'Vendor shortlist',
  });

  it('names the node at the other end, in the right direction', () => {
    expect(edgeFromNode(link, 'a')).toBe('depends on ‘Vendor shortlist’');
    expect(edgeFromNode(link, 'b')).toBe('‘预算上限二十万’ depends on this');
  });

  it('says so when the other end is hidden from the reader', () => {
    expect(edgeFromNode({ ...link, target_text: '' }, 'a')).toBe('depends on a node you cannot see');
  });
});

describe('audit day filters', () => {
  it('turns a date input into the start and end of that local day', () => {
    const start = new Date(dayBoundary('2026-03-15', false) as string);
    const end = new Date(dayBoundary('2026-03-15', true) as string);
    expect([start.getFullYear(), start.getMonth(), start.getDate(), start.getHours()]).toEqual([2026, 2, 15, 0]);
    expect([end.getDate(), end.getHours(), end.getMinutes()]).toEqual([15, 23, 59]);
    expect(dayBoundary('15/03/2026', false)).toBeNull();
  });
});

describe('history words in Chinese', () => {
  const link = entry({
    entity: 'edge',
    action: 'created',
    op_type: 'edge.create',
    node_id: 'a',
    after: { source: 'a', target: 'b', relation: 'depends_on', label: '先决' },
    source_text: '预算上限二十万',
    target_text: 'Vendor shortlist',
  });

  it('follows the UI language, with Chinese quotes and list commas', async () => {
    await i18n.changeLanguage('zh-Hans');
    try {
      expect(describeEntry(entry({ fields: ['content', 'tags', 'x'] }))).toBe('编辑了文本、标签并移动');
      expect(describeEntry(entry({ entity: 'edge', action: 'created' }))).toBe('建立了连接');
      expect(actorLabel({ kind: 'agent', user: null, on_behalf_of: { id: 1, username: 'alice' }, approved_by: null, conversation_id: null, reason: null })).toBe('智能体（代 alice）');
      expect(reasonBadge(entry({ reason: 'undo', undo_of: { kind: 'undo', revision: 4 } }))).toBe('撤销版本 4');
      expect(edgeFromNode(link, 'a')).toBe('依赖（先决）“Vendor shortlist”');
      expect(edgeFromNode(link, 'b')).toBe('“预算上限二十万”依赖（先决）此节点');
      const undone = summarizeUndo({ kind: 'undo', inverted_revision: 7, revision: 9, applied: [], skipped: [], can_undo: true, can_redo: true });
      expect(undone).toEqual({ kind: 'success', title: '已撤销', message: '已撤销你在版本 7 的修改。' });
    } finally {
      await i18n.changeLanguage('en');
    }
    expect(describeEntry(entry({ fields: ['content', 'tags', 'x'] }))).toBe('edited text, tags and moved');
    expect(edgeFromNode(link, 'b')).toBe('‘预算上限二十万’ depends on “先决” this');
  });
});
