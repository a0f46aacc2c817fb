import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../api/client';
import type { CanvasSummary } from '../api/types';
import { AppHeader } from '../components/AppHeader';
import { ConfirmDialog } from '../components/Dialog';
import { PlusIcon, UploadIcon } from '../components/Icons';
import { useExportFlow } from '../history/useExportFlow';
import { Spinner } from '../components/Spinner';
import { navigate } from '../lib/router';
import { toast } from '../lib/toast';
import { Trans, useTranslation } from 'react-i18next';
import { CanvasCard } from './canvasList/CanvasCard';
import { CanvasFormDialog, type Editing } from './canvasList/CanvasFormDialog';
import { ImportErrorDialog } from './canvasList/ImportErrorDialog';
import { useCanvasImport } from './canvasList/useCanvasImport';

export function CanvasListPage() {
  const { t } = useTranslation('pages');
  const [canvases, setCanvases] = useState<CanvasSummary[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<CanvasSummary | null>(null);
  const [busy, setBusy] = useState(false);
  const [startExport, exportDialog] = useExportFlow();
  const { fileRef, importing, importError, clearImportError, onImportFile } = useCanvasImport();

  const load = useCallback(async () => {
    try {
      const list = await api.listCanvases();
      setCanvases(Array.isArray(list) ? list : []);
      setLoadError(null);
    } catch (err) {
      setLoadError(errorMessage(err));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const confirmDelete = async () => {
    if (!deleting) return;
    setBusy(true);
    try {
      await api.deleteCanvas(deleting.id);
      setCanvases((cs) => (cs ?? []).filter((c) => c.id !== deleting.id));
      toast.success(t('list.deleted', { name: deleting.name }));
      setDeleting(null);
    } catch (err) {
      toast.error(errorMessage(err), t('list.deleteFailed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      {exportDialog}
      <AppHeader>
        <span className="crumb">{t('list.title')}</span>
      </AppHeader>
      <main className="list-main">
        <div className="list-head">
          <div>
            <h1>{t('list.title')}</h1>
            <p className="muted">{t('list.subtitle')}</p>
          </div>
          <div className="list-actions">
            <input
              ref={fileRef}
              type="file"
              accept=".canvas,application/json,.json"
              hidden
              onChange={(e) => void onImportFile(e.target.files?.[0])}
              data-testid="import-file-input"
            />
            <button
              className="btn"
              onClick={() => fileRef.current?.click()}
              disabled={importing}
              title={t('list.importHint')}
              data-testid="import-canvas-button"
            >
              <UploadIcon size={15} /> {importing ? t('list.importing') : t('list.import')}
            </button>
            <button className="btn btn-primary" onClick={() => setEditing({ mode: 'create' })} data-testid="new-canvas-button">
              <PlusIcon /> {t('list.newCanvas')}
            </button>
          </div>
        </div>

        {loadError && (
          <div className="banner banner-error" role="alert">
            {loadError}{' '}
            <button className="btn btn-small" onClick={() => void load()}>
              {t('common:actions.retry')}
            </button>
          </div>
        )}
        {!canvases && !loadError && <Spinner />}
        {canvases && canvases.length === 0 && (
          <div className="empty-state" data-testid="canvas-list-empty">
            <h2>{t('list.emptyTitle')}</h2>
            <p className="muted">{t('list.emptyHint')}</p>
            <button className="btn btn-primary" onClick={() => setEditing({ mode: 'create' })}>
              <PlusIcon /> {t('list.createFirst')}
            </button>
          </div>
        )}
        {canvases && canvases.length > 0 && (
          <ul className="canvas-grid" data-testid="canvas-list">
            {canvases.map((c) => (
              <CanvasCard key={c.id} canvas={c} onExport={startExport} onRename={(canvas) => setEditing({ mode: 'rename', canvas })} onDelete={setDeleting} />
            ))}
          </ul>
        )}
      </main>

      {editing && (
        <CanvasFormDialog
          editing={editing}
          onClose={() => setEditing(null)}
          onSaved={(c) => {
            setEditing(null);
            if (editing.mode === 'create') navigate(`/canvases/${c.id}/`);
            else setCanvases((cs) => (cs ?? []).map((x) => (x.id === c.id ? { ...x, ...c } : x)));
          }}
        />
      )}
      {importError && <ImportErrorDialog importError={importError} onClose={clearImportError} />}
      {deleting && (
        <ConfirmDialog
          title={t('list.deleteTitle')}
          message={
            <>
              <Trans t={t} i18nKey="list.deleteWarning" values={{ name: deleting.name }} components={{ b: <strong /> }} />
            </>
          }
          confirmLabel={t('list.deleteConfirm')}
          danger
          busy={busy}
          onConfirm={() => void confirmDelete()}
          onCancel={() => setDeleting(null)}
        />
      )}
    </div>
  );
}
