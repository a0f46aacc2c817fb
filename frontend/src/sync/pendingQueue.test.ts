import { describe, expect, it } from 'vitest';
import type { Op } from '../api/types';
import { EMPTY_DOC } from './apply';
import type { PendingOp } from './engineTypes';
import { PendingQueue } from './pendingQueue';

const pending = (clientOpId: string, op: Op, extra: Partial<PendingOp> = {}): PendingOp => ({ clientOpId, op, ackedRevision: null, retries: 0, ...extra });

describe('PendingQueue', () => {
  it('numbers ops per session and drops those the server document already holds', () => {
    const q = new PendingQueue('tab');
    expect([q.nextClientOpId(), q.nextClientOpId()]).toEqual(['tab-1', 'tab-2']);
    q.push(pending('tab-1', { type: 'node.move', id: 'n', x: 1, y: 1 }, { ackedRevision: 7 }));
    q.push(pending('tab-2', { type: 'node.move', id: 'n', x: 2, y: 2 }, { ackedRevision: 9 }));
    q.push(pending('tab-3', { type: 'node.move', id: 'n', x: 3, y: 3 }));
    expect(q.dropConfirmed(8)).toBe(true);
    expect(q.ops.map((p) => p.clientOpId)).toEqual(['tab-2', 'tab-3']);
    expect(q.dropConfirmed(8)).toBe(false);
    expect(q.unacknowledged()).toEqual([{ clientOpId: 'tab-3', op: { type: 'node.move', id: 'n', x: 3, y: 3 } }]);
  });

  it('sends an overtaken move again right after the older op that waits for its resend', () => {
    const q = new PendingQueue('tab');
    const older = pending('old', { type: 'node.move', id: 'n', x: 1, y: 1 }, { retries: 1 });
    const newer = pending('new', { type: 'node.move', id: 'n', x: 9, y: 9 }, { ackedRevision: 5 });
    q.push(older);
    q.push(newer);
    q.replayIfOvertaken(newer);
    expect(q.ops.map((p) => p.clientOpId)).toEqual(['old', 'new', 'tab-1']);
    expect(q.ops[2].op).toEqual(newer.op);
    // A different node is not overtaken.
    const other = pending('other', { type: 'node.move', id: 'm', x: 0, y: 0 }, { ackedRevision: 6 });
    q.push(other);
    q.replayIfOvertaken(other);
    expect(q.ops).toHaveLength(4);
  });

  it('keeps restored ops in front, without the ones it already has', () => {
    const q = new PendingQueue('tab');
    q.push(pending('b', { type: 'node.delete', id: 'x' }, { sent: true }));
    q.prependRestored([
      { clientOpId: 'a', op: { type: 'node.delete', id: 'y' } },
      { clientOpId: 'b', op: { type: 'node.delete', id: 'x' } },
    ]);
    expect(q.ops.map((p) => p.clientOpId)).toEqual(['a', 'b']);
    expect(q.ops.every((p) => !p.sent)).toBe(true);
  });

  it('reuses the rebased view while neither the server document nor the queue changed', () => {
    const q = new PendingQueue('tab');
    const first = q.view(EMPTY_DOC, null);
    expect(q.view(EMPTY_DOC, null).doc).toBe(first.doc);
    q.push(pending('tab-1', { type: 'node.create', node: { id: 'x', content: '新的想法', kind: 'note', x: 0, y: 0 } }));
    const second = q.view(EMPTY_DOC, null);
    expect(second.doc).not.toBe(first.doc);
    expect(second.doc.nodes.get('x')?.content).toBe('新的想法');
    expect([...second.pendingIds]).toEqual(['x']);
    expect(q.view(EMPTY_DOC, null).doc).toBe(second.doc);
  });
});
