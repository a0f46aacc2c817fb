import { useState } from 'react';
import type { ExcludedNode, IncludedNode } from '../api/types';
import { reasonLabel } from '../canvas/NodeCard';
import { LockIcon } from '../components/Icons';
import { snippet } from '../lib/format';
import type { Doc } from '../sync/apply';

const EXCLUDED_ORDER = ['over_budget', 'out_of_range', 'superseded', 'archived', 'not_visible'];

function nodeText(doc: Doc, id: string, fallback = 'a node you cannot see'): { text: string; known: boolean } {
  const n = doc.nodes.get(id);
  return n ? { text: snippet(n.content || '(empty note)', 64), known: true } : { text: fallback, known: false };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export function formatDetail(detail: string, doc: Doc): string {
  const quote = (id: string) => `“${nodeText(doc, id, 'a hidden node').text}”`;
  if (detail.startsWith('superseded_by=')) return `replaced by ${quote(detail.slice('superseded_by='.length))}`;
  if (detail === 'pinned') return 'pinned, but left out';
  return detail.replace(UUID, (id) => quote(id));
}

/** Nodes that went into the prompt, by rank; click focuses one. */
export function IncludedList({ items, doc, onFocus, testPrefix = 'ctx' }: { items: IncludedNode[]; doc: Doc; onFocus(id: string): void; testPrefix?: string }) {
  if (!items.length) return <div className="muted small">No canvas nodes would be sent.</div>;
  const sorted = [...items].sort((a, b) => a.rank - b.rank);
  return (
    <ol className="ctx-list" data-testid={`${testPrefix}-included`}>
      {sorted.map((n) => {
        const t = nodeText(doc, n.node_id);
        return (
          <li key={n.node_id}>
            <button
              type="button"
              className="ctx-row"
              onClick={() => onFocus(n.node_id)}
              disabled={!t.known}
              title={t.known ? 'Show on the canvas' : undefined}
              data-testid={`${testPrefix}-node-${n.node_id}`}
            >
              <span className="ctx-rank-badge">{n.rank}</span>
              <span className="ctx-handle">{n.handle}</span>
              <span className="ctx-text">
                {n.placeholder && <LockIcon size={11} />} {n.placeholder ? 'secret (placeholder only)' : t.text}
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
  const [open, setOpen] = useState<string | null>(null);
  const reasons = Object.keys(counts).sort((a, b) => {
    const ia = EXCLUDED_ORDER.indexOf(a);
    const ib = EXCLUDED_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  if (!reasons.length) return <div className="muted small">Nothing was left out.</div>;
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
                {counts[r]} node{counts[r] === 1 ? '' : 's'}
              </span>
              <span className="excluded-caret">{expanded ? '▾' : '▸'}</span>
            </button>
            {expanded && (
              <ul className="excluded-items">
                {list.map((x) => {
                  const t = nodeText(doc, x.node_id);
                  return (
                    <li key={x.node_id}>
                      <button type="button" className="ctx-row" disabled={!t.known} onClick={() => onFocus(x.node_id)} data-testid={`${testPrefix}-excluded-node-${x.node_id}`}>
                        <span className="ctx-text">{t.text}</span>
                        {x.detail && <span className="ctx-reason">{formatDetail(x.detail, doc)}</span>}
                      </button>
                    </li>
                  );
                })}
                {list.length < counts[r] && <li className="muted small">…and {counts[r] - list.length} more</li>}
              </ul>
            )}
          </li>
        );
      })}
    </ul>
  );
}
