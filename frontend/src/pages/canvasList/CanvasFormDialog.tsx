import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, errorMessage } from '../../api/client';
import type { CanvasSummary } from '../../api/types';
import { Dialog } from '../../components/Dialog';

/** What the form dialog is for: a new canvas, or renaming one. */
export type Editing = { mode: 'create' } | { mode: 'rename'; canvas: CanvasSummary };

export function CanvasFormDialog({ editing, onClose, onSaved }: { editing: Editing; onClose: () => void; onSaved: (c: CanvasSummary) => void }) {
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
