import { LAYERS } from '../api/types';

export const LAYER_META: Record<string, { label: string; color: string; hint: string }> = {
  system: { label: 'System', color: '#64748b', hint: 'Rules for the model (never trimmed)' },
  canvas: { label: 'Canvas', color: '#4f46e5', hint: 'Nodes near the viewport, anchors, links, matches' },
  summary: { label: 'Summary', color: '#0891b2', hint: 'Rolling summary of older turns' },
  recent: { label: 'Recent', color: '#059669', hint: 'Recent messages, verbatim' },
  question: { label: 'Question', color: '#d97706', hint: 'Your question (always last)' },
};

const fmt = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString() : '—');

/** Tokens per prompt layer against the total budget, with per-layer budgets in the legend. */
export function TokenBar({
  layerTokens,
  budget,
  total,
  compact = false,
  testId = 'token-bar',
}: {
  layerTokens: Record<string, number>;
  budget: Record<string, number> | number | undefined;
  total?: number;
  compact?: boolean;
  testId?: string;
}) {
  const perLayer = typeof budget === 'object' && budget ? budget : {};
  const totalBudget = typeof budget === 'number' ? budget : perLayer.total ?? 0;
  const used = total ?? LAYERS.reduce((s, l) => s + (layerTokens[l] ?? 0), 0);
  const scale = Math.max(totalBudget, used, 1);
  const pct = totalBudget > 0 ? Math.round((used / totalBudget) * 1000) / 10 : null;
  return (
    <div className={`token-bar${compact ? ' compact' : ''}`} data-testid={testId}>
      <div className="token-bar-head">
        <span>
          <strong data-testid={`${testId}-used`}>{fmt(used)}</strong> tokens
        </span>
        <span className="muted">
          of {fmt(totalBudget)} budget{pct !== null ? ` · ${pct}%` : ''}
        </span>
      </div>
      <div className="token-track" role="img" aria-label={`${used} of ${totalBudget} tokens used`}>
        {LAYERS.map((l) => {
          const v = layerTokens[l] ?? 0;
          if (v <= 0) return null;
          return (
            <span
              key={l}
              className="token-seg"
              style={{ width: `${(v / scale) * 100}%`, background: LAYER_META[l].color }}
              title={`${LAYER_META[l].label}: ${fmt(v)} tokens${perLayer[l] ? ` (budget ${fmt(perLayer[l])})` : ''}`}
              data-testid={`token-layer-${l}`}
            />
          );
        })}
      </div>
      {!compact && (
        <ul className="token-legend">
          {LAYERS.map((l) => {
            const v = layerTokens[l] ?? 0;
            const b = perLayer[l];
            const over = b !== undefined && v > b;
            return (
              <li key={l} title={LAYER_META[l].hint}>
                <span className="token-dot" style={{ background: LAYER_META[l].color }} />
                <span className="token-name">{LAYER_META[l].label}</span>
                <span className={`token-num${over ? ' over' : ''}`}>
                  {fmt(v)}
                  {b !== undefined && <span className="muted"> / {fmt(b)}</span>}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
