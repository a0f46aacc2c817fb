import i18n from 'i18next';
import { useTranslation } from 'react-i18next';
import { LAYERS } from '../api/types';

// Labels are getters so they follow the active language.
const layer = (color: string, label: string, hint: string) => ({
  color,
  get label() { return i18n.t(label); },
  get hint() { return i18n.t(hint); },
});

export const LAYER_META: Record<string, { label: string; color: string; hint: string }> = {
  system: layer('#64748b', 'panels:tokenBar.layers.system', 'panels:tokenBar.layers.systemHint'),
  canvas: layer('#4f46e5', 'panels:tokenBar.layers.canvas', 'panels:tokenBar.layers.canvasHint'),
  summary: layer('#0891b2', 'panels:tokenBar.layers.summary', 'panels:tokenBar.layers.summaryHint'),
  recent: layer('#059669', 'panels:tokenBar.layers.recent', 'panels:tokenBar.layers.recentHint'),
  question: layer('#d97706', 'panels:tokenBar.layers.question', 'panels:tokenBar.layers.questionHint'),
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
  const { t } = useTranslation('panels');
  const perLayer = typeof budget === 'object' && budget ? budget : {};
  const totalBudget = typeof budget === 'number' ? budget : perLayer.total ?? 0;
  const used = total ?? LAYERS.reduce((s, l) => s + (layerTokens[l] ?? 0), 0);
  const scale = Math.max(totalBudget, used, 1);
  const pct = totalBudget > 0 ? Math.round((used / totalBudget) * 1000) / 10 : null;
  return (
    <div className={`token-bar${compact ? ' compact' : ''}`} data-testid={testId}>
      <div className="token-bar-head">
        <span>
          <strong data-testid={`${testId}-used`}>{fmt(used)}</strong> {t('tokenBar.tokens')}
        </span>
        <span className="muted">
          {t('tokenBar.ofBudget', { budget: fmt(totalBudget) })}
          {pct !== null ? t('tokenBar.pct', { pct }) : ''}
        </span>
      </div>
      <div className="token-track" role="img" aria-label={t('tokenBar.aria', { used, budget: totalBudget })}>
        {LAYERS.map((l) => {
          const v = layerTokens[l] ?? 0;
          if (v <= 0) return null;
          return (
            <span
              key={l}
              className="token-seg"
              style={{ width: `${(v / scale) * 100}%`, background: LAYER_META[l].color }}
              title={`${t('tokenBar.segTitle', { label: LAYER_META[l].label, n: fmt(v) })}${perLayer[l] ? t('tokenBar.segBudget', { budget: fmt(perLayer[l]) }) : ''}`}
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
