import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../api/types';
import type { ChangeSideEffects } from './apply';
import { ConfirmedDoc } from './confirmedDoc';
import { change, node, nodeChange } from '../test/engineHarness';

function confirmed() {
  const committed: number[] = [];
  const effects: ChangeSideEffects[] = [];
  const doc = new ConfirmedDoc(1000, () => 0, {
    committed: (ev) => committed.push(ev.revision),
    sideEffects: (e) => effects.push(e),
  });
  return { doc, committed, effects };
}

const ev = (revision: number, content: string) => change(revision, [nodeChange(node('a', { content }))]) as unknown as ChangeEvent;

describe('ConfirmedDoc', () => {
  it('holds events until the first snapshot, then applies them in order', () => {
    const { doc, committed } = confirmed();
    doc.receive(ev(6, 'six'));
    expect(doc.synced).toBe(false);
    doc.loadSnapshot([node('a', { content: 'five' })], [], 5);
    expect(doc.doc.nodes.get('a')?.content).toBe('five');
    doc.drain();
    expect(doc.revision).toBe(6);
    expect(doc.doc.nodes.get('a')?.content).toBe('six');
    expect(committed).toEqual([6]);
  });

  it('ignores events it has, applies the next and holds the ones past a gap', () => {
    const { doc, committed } = confirmed();
    doc.loadSnapshot([node('a')], [], 5);
    doc.receive(ev(5, 'old'));
    doc.receive(ev(6, 'six'));
    doc.receive(ev(8, 'eight'));
    expect(doc.revision).toBe(6);
    expect(doc.doc.nodes.get('a')?.content).toBe('six');
    expect(doc.gaps.size).toBe(1);
    // old, applied and held events all count as committed
    expect(committed).toEqual([5, 6, 8]);

    doc.receive(ev(7, 'seven'));
    doc.drain();
    expect(doc.revision).toBe(8);
    expect(doc.doc.nodes.get('a')?.content).toBe('eight');
    expect(doc.gaps.size).toBe(0);
  });

  it('passes on what an event changed besides nodes and edges', () => {
    const { doc, effects } = confirmed();
    doc.loadSnapshot([], [], 1);
    doc.receive(change(2, [{ entity: 'canvas', action: 'updated', id: 1, fields: ['name'], data: { name: 'Renamed' } }]) as unknown as ChangeEvent);
    expect(effects).toEqual([{ canvas: { name: 'Renamed' } }]);
  });

  it('keeps the old document after a resync but applies nothing on top until the next snapshot', () => {
    const { doc } = confirmed();
    doc.loadSnapshot([node('a', { content: 'kept' })], [], 5);
    doc.receive(ev(7, 'held'));
    doc.forgetRevision();
    expect(doc.revision).toBeNull();
    expect(doc.gaps.size).toBe(0);
    doc.receive(ev(6, 'after resync'));
    expect(doc.doc.nodes.get('a')?.content).toBe('kept');
    expect(doc.synced).toBe(true);
  });
});
