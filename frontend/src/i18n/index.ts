/**
 * The UI's languages: English and Simplified Chinese, bundled (no runtime download).
 *
 * Chosen from localStorage (the user's switch), else the browser locale: zh, zh-CN, zh-Hans, zh-SG (any
 * Simplified Chinese) map to zh-Hans; everything else falls back to en. <html lang> follows the choice.
 */
import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import { resources, NAMESPACES } from './resources';

export const LANGUAGES = ['en', 'zh-Hans'] as const;
export type Language = (typeof LANGUAGES)[number];
export const STORAGE_KEY = 'canvasweb.lang';

/** Map any BCP 47 tag to a supported language (Traditional Chinese tags stay English: no catalogue yet). */
export function normalizeLanguage(tag: string | null | undefined): Language | null {
  if (!tag) return null;
  const t = tag.trim().toLowerCase().replace(/_/g, '-');
  if (!t) return null;
  if (t === 'zh' || t === 'zh-cn' || t === 'zh-sg' || t === 'zh-my' || t.startsWith('zh-hans')) return 'zh-Hans';
  if (t.startsWith('zh-')) return null;
  if (t === 'en' || t.startsWith('en-')) return 'en';
  return null;
}

/** The first supported language in a preference list, else en. */
export function pickLanguage(tags: readonly string[]): Language {
  for (const tag of tags) {
    const lang = normalizeLanguage(tag);
    if (lang) return lang;
  }
  return 'en';
}

function applyDocumentLanguage(lang: string) {
  if (typeof document !== 'undefined') document.documentElement.lang = lang;
}

i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources,
    ns: NAMESPACES as unknown as string[],
    defaultNS: 'common',
    fallbackLng: 'en',
    supportedLngs: LANGUAGES as unknown as string[],
    nonExplicitSupportedLngs: false,
    load: 'currentOnly',
    initAsync: false,
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
    detection: {
      order: ['localStorage', 'navigator'],
      lookupLocalStorage: STORAGE_KEY,
      caches: ['localStorage'],
      convertDetectedLanguage: (lng: string) => normalizeLanguage(lng) ?? lng,
    },
    react: { useSuspense: false },
  });

applyDocumentLanguage(i18n.resolvedLanguage ?? 'en');
i18n.on('languageChanged', (lng) => applyDocumentLanguage(lng));

/** The language the UI shows now. */
export function currentLanguage(): Language {
  return normalizeLanguage(i18n.resolvedLanguage ?? i18n.language) ?? 'en';
}

/** The user's switch: remembered in localStorage, and sent as Accept-Language by the API client. */
export async function setLanguage(lang: Language): Promise<void> {
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
  await i18n.changeLanguage(lang);
}

/** Re-run detection (tests; a cleared preference). */
export function detectLanguage(): Language {
  let stored: string | null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    stored = null; // private mode or storage blocked
  }
  const fromStore = normalizeLanguage(stored);
  if (fromStore) return fromStore;
  const nav = typeof navigator !== 'undefined' ? (navigator.languages?.length ? navigator.languages : [navigator.language]) : [];
  return pickLanguage(nav.filter(Boolean) as string[]);
}

/** Locale for Intl (dates, numbers). */
export function intlLocale(): string {
  return currentLanguage() === 'zh-Hans' ? 'zh-Hans-CN' : 'en';
}

export default i18n;
