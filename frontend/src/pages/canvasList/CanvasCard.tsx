import { useTranslation } from 'react-i18next';
import type { CanvasSummary, Role } from '../../api/types';
import { DownloadIcon, PencilIcon, TrashIcon, UsersIcon } from '../../components/Icons';
import { timeAgo } from '../../lib/format';
import { linkHandler } from '../../lib/router';

interface Props {
  canvas: CanvasSummary;
  onExport(canvasId: number | string, name: string, role: Role | null): void;
  onRename(c: CanvasSummary): void;
  onDelete(c: CanvasSummary): void;
}

/** One canvas in the list: a link to open it, and export (anyone), rename and delete (owner). */
export function CanvasCard({ canvas: c, onExport, onRename, onDelete }: Props) {
  const { t } = useTranslation('pages');
  return (
    <li
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
          onClick={() => onExport(c.id, c.name, c.role)}
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
            onClick={() => onRename(c)}
            data-testid={`rename-canvas-${c.id}`}
          >
            <PencilIcon size={14} />
          </button>
          <button
            className="icon-btn danger"
            title={t('list.delete')}
            aria-label={t('list.deleteNamed', { name: c.name })}
            onClick={() => onDelete(c)}
            data-testid={`delete-canvas-${c.id}`}
          >
            <TrashIcon size={14} />
          </button>
          </>
        )}
      </div>
    </li>
  );
}
