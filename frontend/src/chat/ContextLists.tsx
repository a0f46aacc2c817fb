import i18n from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ExcludedNode, IncludedNode } from '../api/types';
import { reasonLabel } from '../canvas/NodeCard';
import { LockIcon } from '../components/Icons';
import { snippet } from '../lib/format';
import type { Doc } from '../sync/apply';

const EXCLUDED_ORDER = ['over_budget', 'out_of_range', 'superseded', 'archived', 'not_visible'];

function nodeText(doc: Doc, id: string, fallback = i18n.t('panels:contextLists.hiddenNode')): { text: string; known: boolean } {
  const n = doc.nodes.get(id);
  return n ? { text: snippet(n.content || i18n.t('panels:contextLists.emptyNote'), 64), known: true } : { text: fallback, known: false };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export function formatDetail(detail: string, doc: Doc): string {
  const hidden = (id: string) => nodeText(doc, id, i18n.t('panels:contextLists.aHiddenNode')).text;
  const quote = (id: string) => `“${hidden(id)}”`;
  if (detail.startsWith('superseded_by=')) return i18n.t('panels:contextLists.replacedBy', { text: hidden(detail.slice('superseded_by='.length)) });
  if (detail === 'pinned') return i18n.t('panels:contextLists.pinnedLeftOut');
  return detail.replace(UUID, (id) => quote(id));
}

/** Nodes that went into the prompt, by rank; click focuses one. */
export function IncludedList({ items, doc, onFocus, testPrefix = 'ctx' }: { items: IncludedNode[]; doc: Doc; onFocus(id: string): void; testPrefix?: string }) {
  const { t } = useTranslation('panels');
  if (!items.length) return <div className="muted small">{t('contextLists.noneSent')}</div>;
  const sorted = [...items].sort((a, b) => a.rank - b.rank);
  return (
    <ol className="ctx-list" data-testid={`${testPrefix}-included`}>
      {sorted.map((n) => {
        const info = nodeText(doc, n.node_id);
        return (
          <li key={n.node_id}>
            <button
              type="button"
              className="ctx-row"
              onClick={() => onFocus(n.node_id)}
              disabled={!info.known}
              title={info.known ? t('contextLists.showOnCanvas') : undefined}
              data-testid={`${testPrefix}-node-${n.node_id}`}
            >
              <span className="ctx-rank-badge">{n.rank}</span>
              <span className="ctx-handle">{n.handle}</span>
              <span className="ctx-text">
                {n.placeholder && <LockIcon size={11} />} {n.placeholder ? t('contextLists.secretPlaceholder') : info.text}
              </span>
              <span className="ctx-reason">{reasonLabel(n.reason)}</span>
              <span className="ctx-tokens">{n.tokens}</span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}

/** Nodes left out, grouped by reason, with counts (the server lists at most 200). */
export function ExcludedList({
  items,
  counts,
  doc,
  onFocus,
  testPrefix = 'ctx',
}: {
  items: ExcludedNode[];
  counts: Record<string, number>;
  doc: Doc;
  onFocus(id: string): void;
  testPrefix?: string;
}) {
  const { t } = useTranslation('panels');
  const [open, setOpen] = useState<string | null>(null);
  const reasons = Object.keys(counts).sort((a, b) => {
    const ia = EXCLUDED_ORDER.indexOf(a);
    const ib = EXCLUDED_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  if (!reasons.length) return <div className="muted small">{t('contextLists.nothingLeftOut')}</div>;
  return (
    <ul className="excluded-groups" data-testid={`${testPrefix}-excluded`}>
      {reasons.map((r) => {
        const list = items.filter((x) => x.reason === r);
        const expanded = open === r;
        return (
          <li key={r} className="excluded-group">
            <button type="button" className="excluded-head" onClick={() => setOpen(expanded ? null : r)} aria-expanded={expanded} data-testid={`${testPrefix}-excluded-${r}`}>
              <span className={`reason-chip reason-${r}`}>{reasonLabel(r)}</span>
              <span className="muted small">
                {t('contextLists.nodes', { count: counts[r] })}
              </span>
              <span className="excluded-caret">{expanded ? '▾' : '▸'}</span>
            </button>
            {expanded && (
              <ul className="excluded-items">
                {list.map((x) => {
                  const info = nodeText(doc, x.node_id);
                  return (
                    <li key={x.node_id}>
                      <button type="button" className="ctx-row" disabled={!info.known} onClick={() => onFocus(x.node_id)} data-testid={`${testPrefix}-excluded-node-${x.node_id}`}>
                        <span className="ctx-text">{info.text}</span>
                        {x.detail && <span className="ctx-reason">{formatDetail(x.detail, doc)}</span>}
                      </button>
                    </li>
                  );
                })}
                {list.length < counts[r] && <li className="muted small">{t('contextLists.more', { count: counts[r] - list.length })}</li>}
              </ul>
            )}
          </li>
        );
      })}
    </ul>
  );
}
