import { useTranslation } from 'react-i18next';
export function Spinner({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <div className="spinner-wrap" role="status">
      <span className="spinner" aria-hidden="true" />
      <span className="spinner-label">{label ?? t('loading')}</span>
    </div>
  );
}
