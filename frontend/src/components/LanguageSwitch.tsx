import { useTranslation } from 'react-i18next';
import { currentLanguage, LANGUAGES, setLanguage, type Language } from '../i18n';

/** English / 简体中文 switch in the header; remembered in localStorage. */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const active = currentLanguage();
  void i18n.resolvedLanguage; // re-render on change
  return (
    <select
      className="lang-switch"
      value={active}
      onChange={(e) => void setLanguage(e.target.value as Language)}
      aria-label={t('header.language')}
      title={t('header.language')}
      data-testid="language-switch"
    >
      {LANGUAGES.map((lang) => (
        <option key={lang} value={lang} lang={lang}>
          {t(`header.languages.${lang}`)}
        </option>
      ))}
    </select>
  );
}
