import i18n from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AgentPolicyValue, Proposal } from '../api/types';
import { relationLabel } from '../api/types';
import { DiffRows, type DiffRow } from '../components/DiffRows';
import { AlertIcon, BotIcon, CheckIcon, CrosshairIcon, XIcon } from '../components/Icons';
import { snippet, timeAgo } from '../lib/format';
import { toast } from '../lib/toast';
import type { Doc } from '../sync/apply';
import { useCanvasActions } from '../canvas/context';
import { kindMeta } from '../canvas/kinds';
import { useOverlay } from '../canvas/overlay';
import { decidedProposals, staleReason, statusLabel, toolLabel } from './proposals';
import type { ProposalsController } from './useProposals';

const MODE_TEXT: Record<string, string> = {
  off: 'proposals.modeText.off',
  propose: 'proposals.modeText.propose',
  auto: 'proposals.modeText.auto',
};

const MODE_NAMES: Record<string, string> = { off: 'settings.modeNames.off', propose: 'settings.modeNames.propose', auto: 'settings.modeNames.auto' };

function createdRows(p: Proposal): DiffRow[] {
  const n = p.diff?.node;
  if (!n) return [];
  const rows: DiffRow[] = [{ field: 'content', before: null, after: n.content }];
  if (n.kind) rows.push({ field: 'kind', before: null, after: n.kind });
  if (n.tags && n.tags.length) rows.push({ field: 'tags', before: null, after: n.tags });
  if (n.sensitivity && n.sensitivity !== 'public') rows.push({ field: 'sensitivity', before: null, after: n.sensitivity });
  return rows;
}

function ProposalDiff({ p, doc }: { p: Proposal; doc: Doc }) {
  const d = p.diff ?? { fields: [] };
  if (p.tool === 'add_node') return <DiffRows rows={createdRows(p)} mode="created" testId={`proposal-diff-${p.id}`} />;
  if (p.tool === 'link_nodes' && d.edge) {
    const src = doc.nodes.get(d.edge.source)?.content ?? d.source?.content ?? i18n.t('panels:proposals.aNode');
    const tgt = doc.nodes.get(d.edge.target)?.content ?? (d.target as { content?: string } | undefined)?.content ?? i18n.t('panels:proposals.aNode');
    return (
      <div className="proposal-link" data-testid={`proposal-diff-${p.id}`}>
        <span className="proposal-link-end">{snippet(src, 40)}</span>
        <span className="proposal-link-rel">{relationLabel(String(d.edge.relation))} →</span>
        <span className="proposal-link-end">{snippet(tgt, 40)}</span>
        {d.edge.label && <span className="muted small">“{d.edge.label}”</span>}
      </div>
    );
  }
  const rows: DiffRow[] = (d.fields ?? []).map((f) => ({ field: f.field, before: f.before, after: f.after }));
  if (p.tool === 'supersede_node' && !rows.some((r) => r.field === 'content') && d.node) {
    rows.unshift({ field: 'content', before: d.target?.content ?? null, after: d.node.content });
  }
  return <DiffRows rows={rows} testId={`proposal-diff-${p.id}`} />;
}

interface Props {
  controller: ProposalsController;
  doc: Doc;
  policy: AgentPolicyValue | null;
  isOwner: boolean;
  onOpenSettings(): void;
}

export function ProposalsPanel({ controller, doc, policy, isOwner, onOpenSettings }: Props) {
  const { t } = useTranslation('panels');
  const actions = useCanvasActions();
  const overlay = useOverlay(actions.overlay);
  const { state, pending } = controller;
  const [busy, setBusy] = useState<number | null>(null);
  const [confirmStale, setConfirmStale] = useState<{ id: number; reason: string } | null>(null);
  const [showDecided, setShowDecided] = useState(false);
  const [flash, setFlash] = useState<number | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const canDecide = !actions.readOnly && (actions.role === 'editor' || actions.role === 'owner');

  // A clicked ghost scrolls its proposal into view.
  useEffect(() => {
    const req = overlay.focusedProposal;
    if (!req) return;
    setFlash(req.id);
    const el = listRef.current?.querySelector(`[data-proposal-id="${req.id}"]`);
    el?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    const timer = setTimeout(() => setFlash(null), 1600);
    return () => clearTimeout(timer);
  }, [overlay.focusedProposal]);

  const focus = (p: Proposal) => {
    const n = p.diff?.node;
    if ((p.tool === 'add_node' || p.tool === 'supersede_node') && n) actions.focusPoint(n.x + 100, n.y + 40);
    else if (p.diff?.target?.id) actions.focusNode(p.diff.target.id);
    else if (p.diff?.edge) actions.focusNode(p.diff.edge.source);
  };

  const approve = async (p: Proposal, force = false) => {
    setBusy(p.id);
    const err = await controller.approve(p.id, force);
    setBusy(null);
    if (!err) {
      setConfirmStale(null);
      toast.success(snippet(p.summary, 80), t('proposals.approved'));
      return;
    }
    if (err.status === 409 && err.field === 'force') {
      setConfirmStale({ id: p.id, reason: err.message });
      return;
    }
    toast.error(err.message, t('proposals.approveFailed'));
  };

  const reject = async (p: Proposal) => {
    setBusy(p.id);
    const err = await controller.reject(p.id);
    setBusy(null);
    if (err) toast.error(err.message, t('proposals.rejectFailed'));
    else toast.info(snippet(p.summary, 80), t('proposals.rejected'));
  };

  const decided = decidedProposals(state, 15);

  return (
    <div className="panel proposals-panel" data-testid="proposals-panel" ref={listRef}>
      <div className="panel-head">
        <h2 className="inspector-title">
          <BotIcon size={15} /> {t('proposals.title')}
        </h2>
        <span className="count-pill" data-testid="proposals-count">
          {pending.length}
        </span>
      </div>
      <div className="policy-line" data-testid="agent-mode">
        <span className={`mode-chip mode-${policy?.mode ?? 'unknown'}`}>{policy ? (MODE_NAMES[policy.mode] ? t(MODE_NAMES[policy.mode]) : policy.mode) : '…'}</span>
        <span className="muted small">{policy ? (MODE_TEXT[policy.mode] ? t(MODE_TEXT[policy.mode]) : '') : t('proposals.loadingPolicy')}</span>
        {isOwner && (
          <button className="link-btn" onClick={onOpenSettings} data-testid="open-agent-settings">
            {t('proposals.change')}
          </button>
        )}
      </div>

      {!state.loaded && <div className="muted small">{t('proposals.loading')}</div>}
      {state.error && <div className="field-hint error">{state.error}</div>}
      {state.loaded && pending.length === 0 && (
        <div className="panel-empty" data-testid="proposals-empty">
          {t('proposals.empty')}
        </div>
      )}

      <ul className="proposal-list">
        {pending.map((p) => {
          const stale = staleReason(p, doc);
          const confirming = confirmStale?.id === p.id;
          const node = p.diff?.node;
          const meta = node ? kindMeta(node.kind ?? 'note') : null;
          return (
            <li
              key={p.id}
              className={`proposal-card${stale ? ' stale' : ''}${flash === p.id ? ' flash' : ''}`}
              data-testid={`proposal-${p.id}`}
              data-proposal-id={p.id}
              data-tool={p.tool}
            >
              <div className="proposal-head">
                <span className="tool-chip">{toolLabel(p.tool)}</span>
                {meta && (
                  <span className="kind-pill" style={{ color: meta.color, background: meta.bg }}>
                    {meta.label}
                  </span>
                )}
                <span className="muted small proposal-meta" title={p.created_at}>
                  {t('proposals.forWhom', { name: p.requested_by?.username ?? t('proposals.someone'), when: timeAgo(p.created_at) })}
                </span>
              </div>
              <div className="proposal-summary">{p.summary}</div>
              <ProposalDiff p={p} doc={doc} />
              {stale && (
                <div className="stale-flag" data-testid={`proposal-stale-${p.id}`}>
                  <AlertIcon size={13} /> {t('proposals.stale', { reason: stale })}
                </div>
              )}
              {confirming && (
                <div className="stale-confirm" role="alert">
                  <div>{confirmStale!.reason}</div>
                  <div className="row gap">
                    <button className="btn btn-small btn-primary" disabled={busy === p.id} onClick={() => void approve(p, true)} data-testid={`proposal-force-${p.id}`}>
                      {t('proposals.approveAnyway')}
                    </button>
                    <button className="btn btn-small" onClick={() => setConfirmStale(null)}>
                      {t('proposals.cancel')}
                    </button>
                  </div>
                </div>
              )}
              <div className="proposal-actions">
                <button className="btn btn-small" onClick={() => focus(p)} title={t('proposals.showTitle')} data-testid={`proposal-focus-${p.id}`}>
                  <CrosshairIcon size={13} /> {t('proposals.show')}
                </button>
                {canDecide && !confirming && (
                  <>
                    <button className="btn btn-small btn-danger-ghost" disabled={busy === p.id} onClick={() => void reject(p)} data-testid={`proposal-reject-${p.id}`}>
                      <XIcon size={13} /> {t('proposals.reject')}
                    </button>
                    <button
                      className="btn btn-small btn-primary"
                      disabled={busy === p.id}
                      onClick={() => (stale ? setConfirmStale({ id: p.id, reason: t('proposals.staleConfirm', { reason: stale }) }) : void approve(p))}
                      data-testid={`proposal-approve-${p.id}`}
                    >
                      <CheckIcon size={13} /> {t('proposals.approve')}
                    </button>
                  </>
                )}
              </div>
              {!canDecide && <div className="muted small">{t('proposals.onlyEditors')}</div>}
            </li>
          );
        })}
      </ul>

      {decided.length > 0 && (
        <div className="decided">
          <button className="link-btn" onClick={() => setShowDecided((v) => !v)} data-testid="proposals-decided-toggle">
            {showDecided ? t('proposals.hideDecided', { count: decided.length }) : t('proposals.showDecided', { count: decided.length })}
          </button>
          {showDecided && (
            <ul className="decided-list">
              {decided.map((p) => (
                <li key={p.id} className={`decided-item status-${p.status}`} data-testid={`decided-${p.id}`}>
                  <span className={`status-chip status-${p.status}`} data-status={p.status}>{statusLabel(p.status)}</span>
                  <span className="decided-summary" title={p.summary}>
                    {snippet(p.summary, 60)}
                  </span>
                  <span className="muted small">
                    {p.decided_by ? t('proposals.by', { name: p.decided_by.username }) : ''} {p.forced ? t('proposals.forced') : ''} {timeAgo(p.decided_at)}
                  </span>
                  {p.error && <span className="field-hint error">{p.error.message}</span>}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <p className="muted small panel-foot">{t('proposals.foot')}</p>
    </div>
  );
}
