import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS, type CanvasNode } from '../../api/types';
import { clamp } from '../../lib/format';
import { useCanvasActions } from '../context';

/** A node's weight: a slider and a number, written when let go (or on Enter / blur). */
export function WeightField({ node, readOnly }: { node: CanvasNode; readOnly: boolean }) {
  const { t } = useTranslation('canvas');
  const { submit } = useCanvasActions();
  const [value, setValue] = useState(String(node.weight));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setValue(String(node.weight)), [node.weight]);

  const commit = (raw: string) => {
    const v = Number(raw);
    if (!Number.isFinite(v) || v < LIMITS.weightMin || v > LIMITS.weightMax) {
      setError(t('inspector.weightRange', { min: LIMITS.weightMin, max: LIMITS.weightMax }));
      return;
    }
    setError(null);
    const rounded = Math.round(v * 10) / 10;
    if (rounded !== node.weight) submit({ type: 'node.update', id: node.id, fields: { weight: rounded } });
  };

  const numeric = Number(value);
  return (
    <div className="field">
      <span className="field-label-row">
        {t('inspector.weight')} <span className="muted small">{t('inspector.weightHint')}</span>
      </span>
      <div className="weight-row">
        <input
          type="range"
          min={LIMITS.weightMin}
          max={LIMITS.weightMax}
          step={0.1}
          value={Number.isFinite(numeric) ? clamp(numeric, LIMITS.weightMin, LIMITS.weightMax) : 1}
          disabled={readOnly}
          aria-label={t('inspector.weightSlider')}
          onChange={(e) => setValue(e.target.value)}
          onPointerUp={(e) => commit((e.target as HTMLInputElement).value)}
          onKeyUp={(e) => commit((e.target as HTMLInputElement).value)}
        />
        <input
          type="number"
          className="weight-number"
          min={LIMITS.weightMin}
          max={LIMITS.weightMax}
          step={0.1}
          value={value}
          readOnly={readOnly}
          data-testid="inspector-weight"
          aria-label={t('inspector.weight')}
          onChange={(e) => setValue(e.target.value)}
          onBlur={(e) => !readOnly && commit(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit((e.target as HTMLInputElement).value);
          }}
        />
      </div>
      {error && <div className="field-hint error">{error}</div>}
    </div>
  );
}
