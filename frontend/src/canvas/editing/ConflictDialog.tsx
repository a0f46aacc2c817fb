// A content edit the server refused with CONFLICT (someone else changed the
// note after this edit started). Nothing is dropped: the person chooses.
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
      message: 'Both texts are here: theirs first, then yours. Merge them and press Enter.',
    });
  };
  return (
    <Dialog
      title="This note was changed while you edited it"
      onClose={mergeBoth}
      width={620}
      testId="conflict-dialog"
      footer={
        <>
          <button className="btn" onClick={takeTheirs} data-testid="conflict-take-theirs">
            Take theirs
          </button>
          <button className="btn" onClick={mergeBoth} data-testid="conflict-merge">
            Both, as a draft to merge
          </button>
          <button className="btn btn-primary" onClick={keepMine} data-testid="conflict-keep-mine">
            Keep mine
          </button>
        </>
      }
    >
      <p className="conflict-intro">
        Your text was <strong>not saved yet</strong>: someone else saved a new version (v{c.current.version}) after you started.
        Choose which text the note keeps. Closing this dialog keeps both in the editor.
        {more > 0 && <span className="muted"> ({more} more to decide after this one.)</span>}
      </p>
      <div className="conflict-columns">
        <section className="conflict-side" data-testid="conflict-theirs">
          <h3>Theirs (now on the canvas)</h3>
          <div className="conflict-text" dir="auto">
            {c.current.content || '(empty)'}
          </div>
        </section>
        <section className="conflict-side mine" data-testid="conflict-mine">
          <h3>Yours (not saved)</h3>
          <div className="conflict-text" dir="auto">
            {c.mine || '(empty)'}
          </div>
        </section>
      </div>
    </Dialog>
  );
}
