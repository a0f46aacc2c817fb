import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { RELATIONS, relationLabel, type Relation } from '../api/types';
import { relationColor } from './kinds';
import { Popover } from './Popover';

interface Props {
  x: number;
  y: number;
  onPick(relation: Relation): void;
  onCancel(): void;
}

export function RelationPicker({ x, y, onPick, onCancel }: Props) {
  const { t } = useTranslation('editing');
  return (
    <Popover x={x} y={y} onClose={onCancel} testId="relation-picker" label={t('relation.choose')}>
      <div className="popover-title">{t('relation.title')}</div>
      <div className="relation-options">
        {RELATIONS.map((r, i) => (
          <button
            key={r}
            type="button"
            className="relation-option"
            autoFocus={i === 0}
            onClick={() => onPick(r)}
            data-testid={`relation-option-${r}`}
          >
            <span className="relation-swatch" style={{ background: relationColor(r) }} />
            <span>{relationLabel(r)}</span>
            <kbd>{i + 1}</kbd>
          </button>
        ))}
      </div>
      <RelationKeys onPick={onPick} />
    </Popover>
  );
}

function RelationKeys({ onPick }: { onPick(r: Relation): void }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const n = Number(e.key);
      if (n >= 1 && n <= RELATIONS.length) {
        e.preventDefault();
        onPick(RELATIONS[n - 1]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onPick]);
  return null;
}
