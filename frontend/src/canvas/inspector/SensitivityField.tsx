import { useTranslation } from 'react-i18next';
import { SENSITIVITIES, type CanvasNode, type NodeFields, type Sensitivity } from '../../api/types';
import { LockIcon } from '../../components/Icons';
import { SENSITIVITY_META } from '../kinds';

/** The sensitivity of a node as a radio group (public / internal / secret…), with the hint of the current one. */
export function SensitivityField({ node, readOnly, update }: { node: CanvasNode; readOnly: boolean; update(fields: NodeFields): void }) {
  const { t } = useTranslation('canvas');
  return (
    <div className="field">
      <span>{t('inspector.sensitivity')}</span>
      <div className="segmented" role="radiogroup" aria-label={t('inspector.sensitivity')} data-testid="inspector-sensitivity">
        {SENSITIVITIES.map((s) => (
          <button
            key={s}
            type="button"
            role="radio"
            aria-checked={node.sensitivity === s}
            className={`seg seg-${s}${node.sensitivity === s ? ' active' : ''}`}
            disabled={readOnly}
            title={SENSITIVITY_META[s].hint}
            onClick={() => node.sensitivity !== s && update({ sensitivity: s as Sensitivity })}
            data-testid={`sensitivity-${s}`}
          >
            {s === 'secret' && <LockIcon size={11} />} {SENSITIVITY_META[s].label}
          </button>
        ))}
      </div>
      <div className="field-hint">{SENSITIVITY_META[node.sensitivity]?.hint}</div>
    </div>
  );
}
