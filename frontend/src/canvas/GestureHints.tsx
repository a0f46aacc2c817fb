// How to work the canvas, by mouse and keyboard and by touch: one definition, two lists (the overview shows
// both; on a touch screen the touch list comes first).
import { Trans, useTranslation } from 'react-i18next';
import { isCoarsePointer } from './narrowScreen';

type Input = 'desktop' | 'touch';

/** One task and the canvas-namespace key saying how to do it with each input (a task may lack one). */
export const GESTURE_HINTS: { task: string; desktop?: string; touch?: string }[] = [
  { task: 'newNote', desktop: 'overview.keyNewNote', touch: 'overview.touchNewNote' },
  { task: 'edit', desktop: 'overview.keyEdit', touch: 'overview.touchEdit' },
  { task: 'newLine', desktop: 'overview.keyNewLine' },
  { task: 'link', desktop: 'overview.keyLink' },
  { task: 'delete', desktop: 'overview.keyDelete' },
  { task: 'move', touch: 'overview.touchPan' },
];

export function hintKeys(input: Input): string[] {
  return GESTURE_HINTS.flatMap((h) => (h[input] ? [h[input]] : []));
}

function HintList({ input }: { input: Input }) {
  const { t } = useTranslation('canvas');
  return (
    <>
      <h3 className="inspector-subtitle">{input === 'touch' ? t('overview.touch') : t('overview.shortcuts')}</h3>
      <ul className="shortcut-list" data-testid={input === 'touch' ? 'touch-hints' : 'shortcut-hints'}>
        {hintKeys(input).map((key) => (
          <li key={key}>
            <Trans t={t} i18nKey={key} components={{ k: input === 'touch' ? <strong /> : <kbd /> }} />
          </li>
        ))}
      </ul>
    </>
  );
}

export function GestureHints() {
  const order: Input[] = isCoarsePointer() ? ['touch', 'desktop'] : ['desktop', 'touch'];
  return (
    <>
      {order.map((input) => (
        <HintList key={input} input={input} />
      ))}
    </>
  );
}
