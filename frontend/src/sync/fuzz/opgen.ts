// Random ops over what a client currently sees, in English and Chinese.
import type { Op } from '../../api/types';
import type { Doc } from '../apply';
import { newEntityId } from '../engine';
import { pick, type Rng } from './rng';

const WORDS = ['port 5433', 'deadline', 'budget 40k', '截止日期', '预算四十万', '端口', 'decision', '会议改到周四', 'retry 3x', '上线'];
const RELATIONS = ['depends_on', 'causes', 'conflicts_with', 'relates_to'] as const;

function text(rng: Rng): string {
  const n = 1 + Math.floor(rng() * 3);
  return Array.from({ length: n }, () => pick(rng, WORDS)).join(' ');
}

const coord = (rng: Rng) => Math.round((rng() * 2 - 1) * 2000 * 10) / 10;

export function randomOp(rng: Rng, doc: Doc): Op {
  const nodes = [...doc.nodes.values()].filter((n) => !n.superseded_by);
  const edges = [...doc.edges.values()];
  const r = rng();
  if (nodes.length < 2 || r < 0.25) {
    return { type: 'node.create', node: { id: newEntityId(), content: text(rng), x: coord(rng), y: coord(rng) } };
  }
  const n = pick(rng, nodes);
  if (r < 0.45) return { type: 'node.update', id: n.id, fields: { content: text(rng) } };
  if (r < 0.7) return { type: 'node.move', id: n.id, x: coord(rng), y: coord(rng) };
  if (r < 0.74) return { type: 'node.update', id: n.id, fields: { weight: 0.5 + Math.round(rng() * 20) / 10, tags: [pick(rng, ['a', 'b', '标签'])] } };
  if (r < 0.78) return { type: 'node.archive', id: n.id, archived: rng() < 0.7 };
  if (r < 0.82) return { type: 'node.delete', id: n.id };
  if (r < 0.84) return { type: 'node.supersede', id: n.id, node: { id: newEntityId(), content: `${text(rng)} (new)`, x: n.x + 40, y: n.y } };
  if (r < 0.95 || edges.length === 0) {
    const other = pick(rng, nodes.filter((m) => m.id !== n.id));
    return { type: 'edge.create', edge: { id: newEntityId(), source: n.id, target: other.id, relation: pick(rng, RELATIONS) } };
  }
  const e = pick(rng, edges);
  return rng() < 0.5 ? { type: 'edge.delete', id: e.id } : { type: 'edge.update', id: e.id, fields: { label: text(rng).slice(0, 30) } };
}
