import { dismissToast, useToasts } from '../lib/toast';
import { XIcon } from './Icons';
import { useTranslation } from 'react-i18next';

export function Toasts() {
  const { t: tr } = useTranslation();
  const toasts = useToasts();
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'} data-testid="toast">
          <div className="toast-body">
            {t.title && <div className="toast-title">{t.title}</div>}
            <div className="toast-message">{t.message}</div>
          </div>
          <button className="icon-btn toast-close" aria-label={tr('actions.dismiss')} onClick={() => dismissToast(t.id)}>
            <XIcon size={14} />
          </button>
        </div>
      ))}
    </div>
  );
}
