import { describe, expect, it } from 'vitest';
import type { Suggestion } from '../api/types';
import { chatReducer, INITIAL_CHAT, type ChatState } from './chatState';
import { retireWarnings } from './SuggestionList';

const sug = (id: number, extra: Partial<Suggestion> = {}): Suggestion => ({
  id,
  conversation_id: 4,
  message_id: 10,
  content: '验收日期：6月9日',
  kind: 'decision',
  subject: '验收 日期',
  value: '6月9日',
  reason: '改成/改为',
  status: 'pending',
  supersede_node_id: 'node-1',
  created_node_id: null,
  previous_value: '6月2日',
  action: 'supersede',
  warnings: [],
  ...extra,
});

function frame(state: ChatState, f: Record<string, unknown>): ChatState {
  return chatReducer(state, { type: 'frame', frame: f as { type: string } });
}

describe('suggestions in the chat state', () => {
  it('restores the conversation’s pending suggestions on load, the server list winning', () => {
    let s = chatReducer(INITIAL_CHAT, { type: 'suggestionsLoaded', conversationId: 4, suggestions: [sug(1), sug(2, { status: 'accepted' })] });
    expect(s.suggestions.map((x) => x.id)).toEqual([1]);
    s = chatReducer(s, { type: 'suggestionsLoaded', conversationId: 4, suggestions: [sug(3)] });
    expect(s.suggestions.map((x) => x.id)).toEqual([3]);
  });

  it('replaces the rules’ suggestions by the model’s (chat.suggestions)', () => {
    let s = chatReducer(INITIAL_CHAT, { type: 'suggestionsLoaded', conversationId: 4, suggestions: [sug(1), sug(2, { content: '预算：25万元', supersede_node_id: null })] });
    s = frame(s, { type: 'chat.suggestions', conversation_id: 4, message_id: 10, suggestions: [sug(5, { source: 'model' })], removed_suggestion_ids: [1] });
    expect(s.suggestions.map((x) => x.id)).toEqual([2, 5]);
  });

  it('drops a suggestion the agent proposed too, so only one shows', () => {
    let s = chatReducer(INITIAL_CHAT, { type: 'suggestionsLoaded', conversationId: 4, suggestions: [sug(1), sug(2, { content: '预算：25万元', supersede_node_id: null })] });
    s = frame(s, { type: 'agent.action', conversation_id: 4, message_id: 11, round: 1, call_id: 'c9', tool: 'supersede_node', outcome: 'proposed', error: null, proposal_id: 8, revision: null, dismissed_suggestion_ids: [2] });
    expect(s.suggestions.map((x) => x.id)).toEqual([1]);
  });
});

describe('retiring a node needs confirmation when it is pinned or more restricted', () => {
  it('warns for a pinned node and for a sensitivity lowered below the node’s', () => {
    expect(retireWarnings(sug(1), { pinned: false, sensitivity: 'public' }, 'public')).toEqual([]);
    expect(retireWarnings(sug(1), { pinned: true, sensitivity: 'public' }, 'public')).toEqual(['pinned']);
    expect(retireWarnings(sug(1), { pinned: false, sensitivity: 'internal' }, 'public')).toEqual(['more_sensitive']);
    expect(retireWarnings(sug(1), { pinned: false, sensitivity: 'internal' }, 'internal')).toEqual([]);
    // a node the user cannot see any more: the server's warnings stand
    expect(retireWarnings(sug(1, { warnings: ['pinned'] }), undefined, 'public')).toEqual(['pinned']);
  });
});
