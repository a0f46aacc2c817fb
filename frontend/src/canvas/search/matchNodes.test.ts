import { describe, expect, it } from 'vitest';
import type { CanvasNode } from '../../api/types';
import { matchNodes } from './matchNodes';

function node(id: string, content: string, extra: Partial<CanvasNode> = {}): CanvasNode {
  return { id, content, kind: 'note', x: 0, y: 0, weight: 1, tags: [], pinned: false, archived: false, superseded_by: null, sensitivity: 'public', ...extra } as CanvasNode;
}

const nodes = [
  node('a', 'Redis runs on port 6409 in staging'),
  node('b', 'The reporting job reads from a replica'),
  node('c', '缓存服务使用 Redis 集群，端口 7000'),
  node('d', '部署窗口是每周四晚上'),
  node('e', 'Old redis note', { archived: true }),
  node('f', 'Misc', { tags: ['Ops-Handbook'] }),
];

describe('matchNodes', () => {
  it('is case-insensitive and ranks whole words over substrings', () => {
    const ids = matchNodes(nodes, 'REDIS').map((h) => h.node.id);
    expect(ids).toEqual(['a', 'c', 'e']);
    // "port" is a whole word in a, a substring of "reporting" in b
    expect(matchNodes(nodes, 'port').map((h) => h.node.id)).toEqual(['a', 'b']);
  });

  it('finds a Chinese term inside a run of Han characters', () => {
    expect(matchNodes(nodes, '每周').map((h) => h.node.id)).toEqual(['d']);
    expect(matchNodes(nodes, '端口 redis').map((h) => h.node.id)).toEqual(['c']);
  });

  it('needs every term, looks at tags, and marks where the match is', () => {
    expect(matchNodes(nodes, 'redis replica')).toEqual([]);
    expect(matchNodes(nodes, 'handbook').map((h) => h.node.id)).toEqual(['f']);
    const [hit] = matchNodes(nodes, '6409');
    expect(hit.at).toEqual([19, 23]);
    expect(matchNodes(nodes, '   ')).toEqual([]);
  });
});
