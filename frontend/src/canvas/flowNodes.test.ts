import { describe, expect, it } from 'vitest';
import type { OverlayState } from './overlay';
import { buildNodes, decorate } from './flowNodes';
import { docFromLists } from '../sync/apply';
import type { CanvasNode } from '../api/types';

const overlay = (over: Partial<OverlayState> = {}): OverlayState => ({
  preview: null,
  agentOnly: false,
  proposals: [],
  focusedProposal: null,
  conversationRequest: null,
  panelRequest: null,
  ...over,
});

const node = (id: string, kind: CanvasNode['kind'], content: string) => ({ id, kind, content, x: 0, y: 0 }) as CanvasNode;

describe('decorate', () => {
  it('shares one plain decoration between undecorated nodes and decorates marked ones', () => {
    const d = decorate(overlay(), new Map([['m', [7]]]));
    const a = d({ id: 'a', author_kind: 'user' });
    expect(d({ id: 'b', author_kind: 'agent' })).toBe(a);
    expect(a).toMatchObject({ rank: null, excluded: null, dimmed: false, proposals: null });
    expect(d({ id: 'm', author_kind: 'user' }).proposals).toEqual([7]);
  });

  it('dims non-agent nodes under the agent filter', () => {
    const d = decorate(overlay({ agentOnly: true }), new Map());
    expect(d({ id: 'a', author_kind: 'user' }).dimmed).toBe(true);
    expect(d({ id: 'b', author_kind: 'agent' }).dimmed).toBe(false);
  });
});

describe('buildNodes', () => {
  it('labels every node with its own kind and text, and keeps unchanged nodes on a rebuild', () => {
    const doc = docFromLists([node('a', 'fact', '缓存 cache'), node('b', 'decision', 'use Redis'), node('c', 'fact', 'port 7000')], []);
    const decor = decorate(overlay(), new Map());
    const first = buildNodes([], doc, new Set(), new Set(), false, decor, []);
    expect(first.map((n) => n.ariaLabel)).toEqual(['Fact: 缓存 cache', 'Decision: use Redis', 'Fact: port 7000']);
    const again = buildNodes(first, doc, new Set(), new Set(), false, decorate(overlay(), new Map()), []);
    again.forEach((n, i) => expect(n).toBe(first[i]));
  });
});
