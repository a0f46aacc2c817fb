// A content edit the server refused with CONFLICT (someone else changed the
// note after this edit started). Nothing is dropped: the person chooses.
import { Trans, useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { useCanvasActions } from '../context';
import { useEditSession, useEditSessionState, type ConflictItem } from './editSession';
import './editing.css';

export function mergeDraft(c: ConflictItem): string {
  return `${c.current.content}\n\n${c.mine}`;
}

export function ConflictDialog() {
  const { conflicts } = useEditSessionState();
  const c = conflicts[0];
  if (!c) return null;
  return <ConflictChoice key={c.key} conflict={c} more={conflicts.length - 1} />;
}

function ConflictChoice({ conflict: c, more }: { conflict: ConflictItem; more: number }) {
  const { t } = useTranslation('editing');
  const session = useEditSession();
  const { submit, selectOnly } = useCanvasActions();
  const keepMine = () => {
    submit({ type: 'node.update', id: c.nodeId, fields: { content: c.mine }, base_version: c.current.version });
    session.resolveConflict(c.key);
  };
  const takeTheirs = () => session.resolveConflict(c.key);
  const mergeBoth = () => {
    session.resolveConflict(c.key);
    selectOnly([c.nodeId]);
    session.restore(c.nodeId, {
      text: mergeDraft(c),
      baseVersion: c.current.version,
      baseContent: c.current.content,
      message: t('conflict.mergeMessage'),
    });
  };
  return (
    <Dialog
      title={t('conflict.title')}
      onClose={mergeBoth}
      width={620}
      testId="conflict-dialog"
      footer={
        <>
          <button className="btn" onClick={takeTheirs} data-testid="conflict-take-theirs">
            {t('conflict.takeTheirs')}
          </button>
          <button className="btn" onClick={mergeBoth} data-testid="conflict-merge">
            {t('conflict.merge')}
          </button>
          <button className="btn btn-primary" onClick={keepMine} data-testid="conflict-keep-mine">
            {t('conflict.keepMine')}
          </button>
        </>
      }
    >
      <p className="conflict-intro">
        <Trans t={t} i18nKey="conflict.intro" values={{ version: c.current.version }} components={{ b: <strong /> }} />
        {more > 0 && <span className="muted"> {t('conflict.more', { count: more })}</span>}
      </p>
      <div className="conflict-columns">
        <section className="conflict-side" data-testid="conflict-theirs">
          <h3>{t('conflict.theirs')}</h3>
          <div className="conflict-text" dir="auto">
            {c.current.content || t('conflict.empty')}
          </div>
        </section>
        <section className="conflict-side mine" data-testid="conflict-mine">
          <h3>{t('conflict.yours')}</h3>
          <div className="conflict-text" dir="auto">
            {c.mine || t('conflict.empty')}
          </div>
        </section>
      </div>
    </Dialog>
  );
}
