import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/client';
import type { CanvasSummary } from '../api/types';
import { AppHeader } from '../components/AppHeader';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { PencilIcon, PlusIcon, TrashIcon, UsersIcon } from '../components/Icons';
import { Spinner } from '../components/Spinner';
import { linkHandler, navigate } from '../lib/router';
import { timeAgo } from '../lib/format';
import { toast } from '../lib/toast';

type Editing = { mode: 'create' } | { mode: 'rename'; canvas: CanvasSummary };

export function CanvasListPage() {
  const [canvases, setCanvases] = useState<CanvasSummary[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<CanvasSummary | null>(null);
  const [busy, setBusy] = useState(false);

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
      toast.success(`Deleted “${deleting.name}”`);
      setDeleting(null);
    } catch (err) {
      toast.error(errorMessage(err), 'Could not delete canvas');
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <AppHeader>
        <span className="crumb">Canvases</span>
      </AppHeader>
      <main className="list-main">
        <div className="list-head">
          <div>
            <h1>Canvases</h1>
            <p className="muted">Shared boards of facts, requirements and decisions.</p>
          </div>
          <button className="btn btn-primary" onClick={() => setEditing({ mode: 'create' })} data-testid="new-canvas-button">
            <PlusIcon /> New canvas
          </button>
        </div>

        {loadError && (
          <div className="banner banner-error" role="alert">
            {loadError}{' '}
            <button className="btn btn-small" onClick={() => void load()}>
              Retry
            </button>
          </div>
        )}
        {!canvases && !loadError && <Spinner />}
        {canvases && canvases.length === 0 && (
          <div className="empty-state" data-testid="canvas-list-empty">
            <h2>No canvases yet</h2>
            <p className="muted">Create one to start collecting what your team knows.</p>
            <button className="btn btn-primary" onClick={() => setEditing({ mode: 'create' })}>
              <PlusIcon /> Create your first canvas
            </button>
          </div>
        )}
        {canvases && canvases.length > 0 && (
          <ul className="canvas-grid" data-testid="canvas-list">
            {canvases.map((c) => (
              <li key={c.id} className="canvas-card" data-testid={`canvas-card-${c.id}`}>
                <a className="canvas-card-link" href={`/canvases/${c.id}/`} onClick={linkHandler(`/canvases/${c.id}/`)} data-testid={`open-canvas-${c.id}`}>
                  <div className="canvas-card-top">
                    <h3 className="canvas-card-name">{c.name}</h3>
                    <span className={`role-badge role-${c.role}`} data-testid={`canvas-role-${c.id}`}>
                      {c.role}
                    </span>
                  </div>
                  <p className="canvas-card-desc">{c.description || <span className="muted">No description</span>}</p>
                  <div className="canvas-card-meta">
                    <span title="Members">
                      <UsersIcon size={13} /> {c.member_count}
                    </span>
                    <span title="Revision">rev {c.revision}</span>
                    <span title={c.updated_at}>Updated {timeAgo(c.updated_at)}</span>
                  </div>
                </a>
                {c.role === 'owner' && (
                  <div className="canvas-card-actions">
                    <button
                      className="icon-btn"
                      title="Rename"
                      aria-label={`Rename ${c.name}`}
                      onClick={() => setEditing({ mode: 'rename', canvas: c })}
                      data-testid={`rename-canvas-${c.id}`}
                    >
                      <PencilIcon size={14} />
                    </button>
                    <button
                      className="icon-btn danger"
                      title="Delete"
                      aria-label={`Delete ${c.name}`}
                      onClick={() => setDeleting(c)}
                      data-testid={`delete-canvas-${c.id}`}
                    >
                      <TrashIcon size={14} />
                    </button>
                  </div>
                )}
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
      {deleting && (
        <ConfirmDialog
          title="Delete canvas?"
          message={
            <>
              <strong>{deleting.name}</strong> and all its nodes, edges and history will be deleted for every member. This
              cannot be undone.
            </>
          }
          confirmLabel="Delete canvas"
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
  const initial = editing.mode === 'rename' ? editing.canvas : null;
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      setError('Give the canvas a name.');
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
    <Dialog title={editing.mode === 'create' ? 'New canvas' : 'Rename canvas'} onClose={onClose} testId="canvas-form-dialog">
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span>Name</span>
          <input autoFocus value={name} maxLength={200} onChange={(e) => setName(e.target.value)} data-testid="canvas-name-input" />
        </label>
        <label className="field">
          <span>
            Description <span className="muted">(optional)</span>
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
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="canvas-form-submit">
            {busy ? 'Saving…' : editing.mode === 'create' ? 'Create canvas' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
