import { describe, expect, it } from 'vitest';
import type { PresencePeer } from '../../sync/engine';
import { activityKey, activityOf } from './peerActivity';

const peer = (id: string, extra: Partial<PresencePeer> = {}): PresencePeer => ({
  connectionId: id,
  user: { id: 1, username: `user-${id}` },
  color: '#e76f51',
  viewport: null,
  cursor: { x: 1, y: 2 },
  editing: null,
  dragging: null,
  updatedAt: 0,
  ...extra,
});

describe('activityKey', () => {
  it('ignores cursors, viewports and idle peers (no canvas re-render for them)', () => {
    const quiet = activityKey([peer('a'), peer('b', { cursor: { x: 9, y: 9 } })]);
    expect(quiet).toBe('');
    const editing = [peer('a', { editing: 'n1' }), peer('b')];
    expect(activityKey(editing)).toBe(activityKey([peer('a', { editing: 'n1', cursor: { x: 50, y: 50 } }), peer('c')]));
  });

  it('changes when someone starts editing or drags on', () => {
    const a = activityKey([peer('a', { dragging: { id: 'n1', x: 0, y: 0 } })]);
    const b = activityKey([peer('a', { dragging: { id: 'n1', x: 5, y: 0 } })]);
    expect(a).not.toBe(b);
    expect(activityOf([peer('a', { dragging: { id: 'n1', x: 5, y: 0 } })]).dragged.get('n1')).toEqual({ x: 5, y: 0 });
  });
});
