import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/client';
import type { CanvasSummary } from '../api/types';
import { AppHeader } from '../components/AppHeader';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { DownloadIcon, PencilIcon, PlusIcon, TrashIcon, UploadIcon, UsersIcon } from '../components/Icons';
import { importCanvasFile, type ImportFailure } from '../history/jsonCanvas';
import { useExportFlow } from '../history/useExportFlow';
import { Spinner } from '../components/Spinner';
import { linkHandler, navigate } from '../lib/router';
import { timeAgo } from '../lib/format';
import { toast } from '../lib/toast';
import { Trans, useTranslation } from 'react-i18next';

type Editing = { mode: 'create' } | { mode: 'rename'; canvas: CanvasSummary };

export function CanvasListPage() {
  const { t } = useTranslation('pages');
  const [canvases, setCanvases] = useState<CanvasSummary[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<CanvasSummary | null>(null);
  const [busy, setBusy] = useState(false);
  const [importing, setImporting] = useState(false);
  const [startExport, exportDialog] = useExportFlow();
  const [importError, setImportError] = useState<(ImportFailure & { file: string }) | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  const onImportFile = async (file: File | undefined) => {
    if (!file) return;
    setImporting(true);
    try {
      const res = await importCanvasFile(file);
      const extras = [
        t('list.importCounts', { nodes: t('list.nodeCount', { count: res.nodes }), edges: t('list.edgeCount', { count: res.edges }) }),
        ...res.notes.slice(0, 2),
        ...(res.unknown_keys.length ? [t('list.ignoredKeys', { keys: res.unknown_keys.map((u) => u.keys.join(', ')).join('; ') })] : []),
      ];
      toast.success(extras.join(' · '), t('list.imported', { name: res.canvas.name }));
      navigate(`/canvases/${res.canvas.id}/`);
    } catch (err) {
      const f = err as ImportFailure;
      setImportError({ message: f?.message ?? String(err), problems: f?.problems ?? [], file: file.name });
    } finally {
      setImporting(false);
      if (fileRef.current) fileRef.current.value = '';
    }
  };

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
              <li
                key={c.id}
                className="canvas-card"
                data-testid={`canvas-card-${c.id}`}
                style={{ ['--card-actions' as string]: c.role === 'owner' ? 3 : 1 }}
              >
                <a className="canvas-card-link" href={`/canvases/${c.id}/`} onClick={linkHandler(`/canvases/${c.id}/`)} data-testid={`open-canvas-${c.id}`}>
                  <div className="canvas-card-top">
                    <h3 className="canvas-card-name">{c.name}</h3>
                    <span className={`role-badge role-${c.role}`} data-testid={`canvas-role-${c.id}`}>
                      {t(`common:roles.${c.role}`)}
                    </span>
                  </div>
                  <p className="canvas-card-desc">{c.description || <span className="muted">{t('list.noDescription')}</span>}</p>
                  <div className="canvas-card-meta">
                    <span title={t('list.members')}>
                      <UsersIcon size={13} /> {c.member_count}
                    </span>
                    <span title={t('list.revision')}>{t('list.rev', { revision: c.revision })}</span>
                    <span title={c.updated_at}>{t('list.updated', { ago: timeAgo(c.updated_at) })}</span>
                  </div>
                </a>
                <div className="canvas-card-actions">
                  <button
                    className="icon-btn"
                    title={t('list.export')}
                    aria-label={t('list.exportNamed', { name: c.name })}
                    onClick={() => startExport(c.id, c.name, c.role)}
                    data-testid={`export-canvas-${c.id}`}
                  >
                    <DownloadIcon size={14} />
                  </button>
                  {c.role === 'owner' && (
                    <>
                    <button
                      className="icon-btn"
                      title={t('list.rename')}
                      aria-label={t('list.renameNamed', { name: c.name })}
                      onClick={() => setEditing({ mode: 'rename', canvas: c })}
                      data-testid={`rename-canvas-${c.id}`}
                    >
                      <PencilIcon size={14} />
                    </button>
                    <button
                      className="icon-btn danger"
                      title={t('list.delete')}
                      aria-label={t('list.deleteNamed', { name: c.name })}
                      onClick={() => setDeleting(c)}
                      data-testid={`delete-canvas-${c.id}`}
                    >
                      <TrashIcon size={14} />
                    </button>
                    </>
                  )}
                </div>
              </li>
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
      {importError && (
        <Dialog
          title={t('list.importFailed')}
          onClose={() => setImportError(null)}
          width={560}
          testId="import-error-dialog"
          footer={
            <button className="btn btn-primary" onClick={() => setImportError(null)}>
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
      )}
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

function CanvasFormDialog({ editing, onClose, onSaved }: { editing: Editing; onClose: () => void; onSaved: (c: CanvasSummary) => void }) {
  const { t } = useTranslation('pages');
  const initial = editing.mode === 'rename' ? editing.canvas : null;
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      setError(t('form.nameRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const saved =
        editing.mode === 'create'
          ? await api.createCanvas(name.trim(), description.trim())
          : await api.updateCanvas(editing.canvas.id, { name: name.trim(), description: description.trim() });
      onSaved(saved);
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };

  return (
    <Dialog title={editing.mode === 'create' ? t('list.newCanvas') : t('form.renameTitle')} onClose={onClose} testId="canvas-form-dialog">
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span>{t('form.name')}</span>
          <input autoFocus value={name} maxLength={200} onChange={(e) => setName(e.target.value)} data-testid="canvas-name-input" />
        </label>
        <label className="field">
          <span>
            {t('form.description')} <span className="muted">{t('form.optional')}</span>
          </span>
          <textarea rows={3} value={description} onChange={(e) => setDescription(e.target.value)} data-testid="canvas-description-input" />
        </label>
        {error && (
          <div className="form-error" role="alert">
            {error}
          </div>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            {t('common:actions.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="canvas-form-submit">
            {busy ? t('common:actions.saving') : editing.mode === 'create' ? t('form.create') : t('common:actions.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
