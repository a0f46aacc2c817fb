import { Trans, useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import type { ImportError } from './useCanvasImport';

/** Why a file was not imported: the message, or the numbered list of problems found in it. */
export function ImportErrorDialog({ importError, onClose }: { importError: ImportError; onClose(): void }) {
  const { t } = useTranslation('pages');
  return (
    <Dialog
      title={t('list.importFailed')}
      onClose={onClose}
      width={560}
      testId="import-error-dialog"
      footer={
        <button className="btn btn-primary" onClick={onClose}>
          {t('common:actions.ok')}
        </button>
      }
    >
      <div className="stack-sm">
        <p>
          <Trans t={t} i18nKey="list.notImported" values={{ file: importError.file }} components={{ b: <strong /> }} />
        </p>
        <div className="form-error" data-testid="import-error-message">
          {importError.problems.length > 0 ? t('list.invalidFile') : importError.message}
        </div>
        {importError.problems.length > 0 && (
          <>
            <div className="muted small">
              {t('list.problemsFound', { count: importError.problems.length })}
            </div>
            <ol className="import-problems" data-testid="import-problems">
              {importError.problems.map((p, i) => (
                <li key={i}>{p}</li>
              ))}
            </ol>
          </>
        )}
      </div>
    </Dialog>
  );
}
