// Chips under a message: the agent's tool calls (under its reply) and the facts captured from a
// question with what became of them (under the question). Both come back with the message list,
// so they survive a reload.
import { useTranslation } from 'react-i18next';
import type { Suggestion } from '../api/types';
import { useCanvasActions } from '../canvas/context';
import { BotIcon, CheckIcon, XIcon } from '../components/Icons';
import { snippet } from '../lib/format';
import type { AgentActionEvent } from './chatState';
import './chat.css';

// Catalogue keys (chat namespace) for the outcome of a tool call and of a captured fact.
const OUTCOMES = ['applied', 'proposed', 'read', 'refused'];
const CAPTURED_KEYS: Record<string, string> = { accepted: 'captured.accepted', dismissed: 'captured.dismissed', pending: 'captured.pending' };

export function AgentActions({ actions }: { actions: AgentActionEvent[] }) {
  const { t } = useTranslation('chat');
  const { overlay } = useCanvasActions();
  if (!actions.length) return null;
  return (
    <ul className="agent-actions" data-testid="agent-actions">
      {actions.map((a, i) => (
        <li key={`${a.call_id}-${i}`} className={`agent-action outcome-${a.outcome}`} data-testid="agent-action" data-outcome={a.outcome}>
          <BotIcon size={11} />
          <span>
            {OUTCOMES.includes(a.outcome) ? t(`outcomes.${a.outcome}`) : a.outcome} <span className="mono-inline">{a.tool}</span>
          </span>
          {a.proposal_id != null && (
            <button className="link-btn" onClick={() => overlay.focusProposal(a.proposal_id!)} data-testid="agent-action-proposal">
              {t('review')}
            </button>
          )}
          {a.error && (
            <span className="agent-action-error" title={a.error.message}>
              {snippet(a.error.message, 60)}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** What became of the facts captured from one question (pending ones wait in the suggestion list). */
export function CapturedFacts({ suggestions }: { suggestions: Suggestion[] }) {
  const { t } = useTranslation('chat');
  const { engine, focusNode } = useCanvasActions();
  const decided = suggestions.filter((s) => s.status !== 'pending');
  if (!decided.length) return null;
  return (
    <ul className="captured-facts" data-testid="captured-facts">
      {decided.map((s) => {
        const nodeId = s.created_node_id;
        const canShow = !!nodeId && engine.getSnapshot().doc.nodes.has(nodeId);
        return (
          <li key={s.id} className={`captured-fact captured-${s.status}`} data-testid={`captured-${s.id}`} data-status={s.status}>
            {s.status === 'accepted' ? <CheckIcon size={11} /> : <XIcon size={11} />}
            <span className="captured-word">{s.status in CAPTURED_KEYS ? t(CAPTURED_KEYS[s.status]) : s.status}:</span>
            {canShow ? (
              <button className="link-btn captured-content" dir="auto" onClick={() => focusNode(nodeId!)} title={t('showAddedNode')}>
                {snippet(s.content, 60)}
              </button>
            ) : (
              <span className="captured-content" dir="auto">
                {snippet(s.content, 60)}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
