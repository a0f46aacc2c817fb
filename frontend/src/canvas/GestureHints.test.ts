// One definition for the mouse/keyboard and the touch hints: each list has its entries, in both languages.
import { describe, expect, it } from 'vitest';
import { resources } from '../i18n/resources';
import { GESTURE_HINTS, hintKeys } from './GestureHints';

const lookup = (lang: 'en' | 'zh-Hans', key: string) =>
  key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], resources[lang].canvas);

describe('gesture hints', () => {
  it('lists a touch way to make a note, pan and zoom, next to the desktop shortcuts', () => {
    expect(hintKeys('touch')).toEqual(['overview.touchNewNote', 'overview.touchEdit', 'overview.touchPan']);
    expect(hintKeys('desktop')).toContain('overview.keyNewNote');
    expect(GESTURE_HINTS.find((h) => h.task === 'newNote')).toMatchObject({ desktop: 'overview.keyNewNote', touch: 'overview.touchNewNote' });
  });

  it('has every hint in English and Chinese', () => {
    for (const key of [...hintKeys('desktop'), ...hintKeys('touch'), 'overview.touch', 'overview.shortcuts'])
      for (const lang of ['en', 'zh-Hans'] as const) expect(typeof lookup(lang, key), `${lang} ${key}`).toBe('string');
  });
});
