// Export with a question first for owners: a downloaded file leaves the
// product's access control, so secret nodes go into it only when asked for.
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../api/client';
import type { Role } from '../api/types';
import { Dialog } from '../components/Dialog';
import { toast } from '../lib/toast';
import { downloadExport } from './jsonCanvas';

interface Pending {
  canvasId: number | string;
  name: string;
  /** Secret nodes the owner can see, when the caller knows (the open canvas); null on the canvas list. */
  secretCount: number | null;
}

export function useExportFlow(): [(canvasId: number | string, name: string, role: Role | null, secretCount?: number | null) => void, ReactNode] {
  const { t } = useTranslation('canvas');
  const [pending, setPending] = useState<Pending | null>(null);
  const [includeSecret, setIncludeSecret] = useState(false);

  const run = (canvasId: number | string, name: string, secret: boolean) =>
    downloadExport(canvasId, name, secret).catch((err) => toast.error(errorMessage(err), t('pages:list.exportFailed')));

  const start = (canvasId: number | string, name: string, role: Role | null, secretCount: number | null = null) => {
    // Only owners see secret nodes; for everyone else there is nothing to ask.
    if (role !== 'owner' || secretCount === 0) {
      void run(canvasId, name, false);
      return;
    }
    setIncludeSecret(false);
    setPending({ canvasId, name, secretCount });
  };

  const dialog = pending && (
    <Dialog
      title={t('pages:list.export')}
      onClose={() => setPending(null)}
      testId="export-dialog"
      footer={
        <>
          <button className="btn" onClick={() => setPending(null)}>
            {t('common:actions.cancel')}
          </button>
          <button
            className="btn btn-primary"
            data-testid="export-confirm"
            onClick={() => {
              void run(pending.canvasId, pending.name, includeSecret);
              setPending(null);
            }}
          >
            {t('export.download')}
          </button>
        </>
      }
    >
      <p className="small">
        {pending.secretCount === null ? t('export.maySecret') : t('export.secretNotes', { count: pending.secretCount })}{' '}
        {t('export.leftOut')}
      </p>
      <label className="check-row">
        <input
          type="checkbox"
          checked={includeSecret}
          onChange={(e) => setIncludeSecret(e.target.checked)}
          data-testid="export-include-secret"
        />{' '}
        {t('export.includeSecret')}
      </label>
    </Dialog>
  );
  return [start, dialog];
}
