// Facts captured from the user's messages, offered as one-click canvas changes: a new node,
// a supersede of the node it corrects (old → new), or a fact linked to the constraint it breaks.
import { useState, type Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import { api, errorMessage } from '../api/client';
import { SENSITIVITIES, type Sensitivity, type Suggestion } from '../api/types';
import { useCanvasActions } from '../canvas/context';
import { kindMeta, SENSITIVITY_META } from '../canvas/kinds';
import { findFreeSpotAround } from '../canvas/placement';
import { AlertIcon, PlusIcon, SparklesIcon, XIcon } from '../components/Icons';
import { snippet } from '../lib/format';
import { toast } from '../lib/toast';
import type { ChatAction } from './chatState';

// What each role may mark (the server refuses more): viewers never get suggestions.
const MARKABLE: Record<string, Sensitivity[]> = { owner: SENSITIVITIES, editor: ['public', 'internal'] };
const LEVEL: Record<string, number> = { public: 0, internal: 1, secret: 2 };

export interface AcceptChoice {
  supersede: boolean;
  sensitivity: Sensitivity;
  confirm: boolean;
}

/** Warnings for retiring `s`'s node as chosen now (the server checks the same on accept). */
export function retireWarnings(s: Suggestion, node: { pinned?: boolean; sensitivity?: string } | undefined, sensitivity: Sensitivity): string[] {
  const out = new Set((s.warnings ?? []).filter((w) => w !== 'more_sensitive'));
  if (node?.pinned) out.add('pinned');
  const nodeLevel = LEVEL[node?.sensitivity ?? ''] ?? ((s.warnings ?? []).includes('more_sensitive') ? 3 : -1);
  if (nodeLevel > (LEVEL[sensitivity] ?? 0)) out.add('more_sensitive');
  return [...out];
}

const WARNING_KEY: Record<string, string> = {
  pinned: 'suggestions.warnings.pinned',
  more_sensitive: 'suggestions.warnings.moreSensitive',
};

export function SuggestionChip({ s, busy, onAccept, onDismiss }: { s: Suggestion; busy: boolean; onAccept(choice: AcceptChoice): void; onDismiss(): void }) {
  const { t } = useTranslation('panels');
  const { engine, readOnly, role } = useCanvasActions();
  const [supersede, setSupersede] = useState(true);
  const suggested: Sensitivity = s.sensitivity ?? 'public';
  const [sensitivity, setSensitivity] = useState<Sensitivity>(suggested);
  const [confirmed, setConfirmed] = useState(false);
  const old = s.supersede_node_id ? engine.getSnapshot().doc.nodes.get(s.supersede_node_id) : undefined;
  const oldText = old?.content ?? s.supersede_content ?? null;
  const meta = kindMeta(s.kind);
  const willSupersede = !!s.supersede_node_id && supersede;
  const warnings = willSupersede ? retireWarnings(s, old, sensitivity) : [];
  const needsConfirm = warnings.length > 0;
  const choices = MARKABLE[role ?? ''] ?? [suggested];
  return (
    <li className="suggestion" data-testid={`suggestion-${s.id}`} data-action={s.action ?? (s.supersede_node_id ? 'supersede' : 'create')}>
      <div className="suggestion-top">
        <span className="kind-pill" style={{ color: meta.color, background: meta.bg }}>
          {meta.label}
        </span>
        <span className="suggestion-content" dir="auto" data-testid={`suggestion-content-${s.id}`}>
          {s.content}
        </span>
        <button className="icon-btn" title={t('suggestions.dismiss')} aria-label={t('suggestions.dismissAria')} disabled={busy} onClick={onDismiss} data-testid={`suggestion-dismiss-${s.id}`}>
          <XIcon size={13} />
        </button>
      </div>
      {s.previous_value && s.value && (
        <div className="suggestion-change" dir="auto" data-testid={`suggestion-change-${s.id}`}>
          {s.label && <span className="suggestion-label">{s.label}: </span>}
          <del className="old-value">{s.previous_value}</del> → <ins className="new-value">{s.value}</ins>
        </div>
      )}
      {s.supersede_node_id && (
        <div className={`supersede-note${supersede ? '' : ' off'}`} data-testid={`suggestion-supersede-${s.id}`}>
          {supersede ? t('suggestions.retires') : t('suggestions.willNotRetire')}{' '}
          <span className="supersede-old" dir="auto">“{oldText ? snippet(oldText, 70) : t('suggestions.hiddenNode')}”</span>
          <label className="supersede-toggle">
            <input type="checkbox" checked={!supersede} onChange={(e) => setSupersede(!e.target.checked)} data-testid={`suggestion-no-supersede-${s.id}`} /> {t('suggestions.addWithout')}
          </label>
        </div>
      )}
      {needsConfirm && (
        <div className="suggestion-warning" role="alert" data-testid={`suggestion-warning-${s.id}`} data-warnings={warnings.join(' ')}>
          <AlertIcon size={12} />
          <div>
            {warnings.map((w) => (
              <div key={w}>{WARNING_KEY[w] ? t(WARNING_KEY[w]) : w}</div>
            ))}
            {!readOnly && (
              <label className="supersede-toggle">
                <input type="checkbox" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} data-testid={`suggestion-confirm-${s.id}`} /> {t('suggestions.confirmRetire')}
              </label>
            )}
          </div>
        </div>
      )}
      {s.note && (
        <div className="suggestion-conflict" dir="auto" data-testid={`suggestion-conflict-${s.id}`}>
          <AlertIcon size={12} /> {s.note}
          {s.action === 'conflicts_with' && <span className="muted">{t('suggestions.linksConflict')}</span>}
        </div>
      )}
      {!readOnly && (
        <div className="suggestion-actions">
          <label className={`suggestion-sensitivity sens-${sensitivity}`} title={SENSITIVITY_META[sensitivity].hint}>
            <span className="sr-only">{t('suggestions.sensitivity')}</span>
            <select value={sensitivity} disabled={busy} onChange={(e) => setSensitivity(e.target.value as Sensitivity)} data-testid={`suggestion-sensitivity-${s.id}`}>
              {choices.map((c) => (
                <option key={c} value={c}>
                  {SENSITIVITY_META[c].label}
                  {c === suggested && suggested !== 'public' ? t('suggestions.asYouSaid') : ''}
                </option>
              ))}
            </select>
          </label>
          <button
            className="btn btn-small btn-primary suggestion-accept"
            disabled={busy || (needsConfirm && !confirmed)}
            onClick={() => onAccept({ supersede: willSupersede, sensitivity, confirm: needsConfirm && confirmed })}
            data-testid={`suggestion-accept-${s.id}`}
          >
            <PlusIcon size={13} /> {willSupersede ? t('suggestions.addSupersede') : s.action === 'conflicts_with' ? t('suggestions.addConflict') : t('suggestions.addToCanvas')}
          </button>
        </div>
      )}
    </li>
  );
}

export function SuggestionList({ suggestions, dispatch }: { suggestions: Suggestion[]; dispatch: Dispatch<ChatAction> }) {
  const { t } = useTranslation('panels');
  const actions = useCanvasActions();
  const { engine, overlay: overlayStore, selectOnly, readOnly } = actions;
  const [busyId, setBusyId] = useState<number | null>(null);
  if (!suggestions.length) return null;

  const accept = async (s: Suggestion, choice: AcceptChoice) => {
    setBusyId(s.id);
    const vp = overlayStore.getViewport();
    const doc = engine.getSnapshot().doc;
    const spot = findFreeSpotAround({ x: vp?.x ?? 0, y: vp?.y ?? 0 }, doc.nodes.values(), { w: 200, h: 90 }, actions.measure);
    try {
      const res = await api.acceptSuggestion(s.id, spot.x, spot.y, choice.supersede, choice.sensitivity, choice.confirm);
      dispatch({ type: 'suggestionUpdated', suggestion: res.suggestion });
      toast.success(snippet(s.content, 80), choice.supersede ? t('suggestions.addedSuperseded') : t('suggestions.added'));
      const newId = res.suggestion.created_node_id;
      if (newId) {
        // Select it once the change arrives over the socket.
        const started = Date.now();
        const off = engine.subscribe(() => {
          if (engine.getSnapshot().doc.nodes.has(newId)) {
            off();
            selectOnly([newId]);
          } else if (Date.now() - started > 5000) off();
        });
        if (engine.getSnapshot().doc.nodes.has(newId)) {
          off();
          selectOnly([newId]);
        }
      }
    } catch (err) {
      toast.error(errorMessage(err), t('suggestions.addFailed'));
    } finally {
      setBusyId(null);
    }
  };

  const dismiss = async (s: Suggestion) => {
    setBusyId(s.id);
    try {
      const res = await api.dismissSuggestion(s.id);
      dispatch({ type: 'suggestionUpdated', suggestion: res.suggestion });
    } catch (err) {
      toast.error(errorMessage(err), t('suggestions.dismissFailed'));
    } finally {
      setBusyId(null);
    }
  };

  return (
    <div className="suggestions" data-testid="suggestions">
      <div className="suggestions-title">
        <SparklesIcon size={12} /> {t('suggestions.captured')}
      </div>
      <ul>
        {suggestions.map((s) => (
          <SuggestionChip key={s.id} s={s} busy={busyId === s.id} onAccept={(choice) => void accept(s, choice)} onDismiss={() => void dismiss(s)} />
        ))}
      </ul>
      {readOnly && <div className="muted small">{t('suggestions.viewers')}</div>}
    </div>
  );
}
