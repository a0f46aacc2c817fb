import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { indexedDbPendingStore } from './pendingStore';


describe('indexedDbPendingStore', () => {
  it('keeps the last saved queue per canvas across store instances (a reload)', async () => {
    const first = indexedDbPendingStore('7')!;
    first.save({ userId: 3, ops: [{ clientOpId: 'a-1', op: { type: 'node.move', id: 'n', x: 1, y: 2 } }] });
    first.save({
      userId: 3,
      ops: [
        { clientOpId: 'a-1', op: { type: 'node.move', id: 'n', x: 1, y: 2 } },
        { clientOpId: 'a-2', op: { type: 'node.update', id: 'n', fields: { content: '会议改到周四' } } },
      ],
    });
    await first.flush();
    const reloaded = indexedDbPendingStore('7')!;
    const saved = await reloaded.load();
    expect(saved?.userId).toBe(3);
    expect(saved?.ops.map((o) => o.clientOpId)).toEqual(['a-1', 'a-2']);
    expect(await indexedDbPendingStore('8')!.load()).toBeNull();
  });

  it('removes the record once nothing is pending', async () => {
    const store = indexedDbPendingStore('9')!;
    store.save({ userId: 1, ops: [{ clientOpId: 'x', op: { type: 'node.delete', id: 'n' } }] });
    store.save({ userId: 1, ops: [] });
    await store.flush();
    expect(await indexedDbPendingStore('9')!.load()).toBeNull();
  });
});
