// The inline editor of a node card: remembers the version the edit started
// from (sent as base_version), shows when the node changed underneath, tells
// the others that this node is being edited, and can split an over-long text.
import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { LIMITS, type CanvasNode, type Op } from '../../api/types';
import { snippet } from '../../lib/format';
import { newEntityId } from '../../sync/engine';
import { useCanvasActions } from '../context';
import { weightStyle } from '../kinds';
import { NodeEditor } from '../NodeEditor';
import { findFreeSpot } from '../placement';
import { useEditSession } from './editSession';
import { splitText } from './splitText';
import './editing.css';

/** Ops that save `text` into `node` and, past the limit, the rest as new notes next to it. */
export function splitOps(node: CanvasNode, text: string, base: number | null, others: Iterable<CanvasNode>,
  measure?: (id: string) => { width?: number; height?: number } | undefined): Op[] {
  const [first, ...rest] = splitText(text, LIMITS.contentMax);
  const ops: Op[] = [{ type: 'node.update', id: node.id, fields: { content: first }, ...(base != null ? { base_version: base } : {}) }];
  const placed: CanvasNode[] = [...others];
  let prev = node;
  const w = weightStyle(node.weight).width;
  for (const part of rest) {
    const spot = findFreeSpot(prev, placed, { w }, measure);
    const id = newEntityId();
    ops.push({ type: 'node.create', node: { id, content: part, kind: node.kind, x: spot.x, y: spot.y, tags: node.tags, sensitivity: node.sensitivity } });
    prev = { ...node, id, x: spot.x, y: spot.y, content: part };
    placed.push(prev);
  }
  return ops;
}

export function CardEditor({ node }: { node: CanvasNode }) {
  const { t } = useTranslation('editing');
  const actions = useCanvasActions();
  const session = useEditSession();
  const { engine } = actions;
  const serverVersion = () => engine.getSnapshot().server.nodes.get(node.id)?.version ?? null;
  const [opened] = useState(() => {
    const r = session.takeRestored(node.id);
    const base = r && r.baseVersion != null ? { version: r.baseVersion, content: r.baseContent } : { version: serverVersion(), content: node.content };
    return { text: r?.text ?? node.content, message: r?.message ?? null, base };
  });
  const [base, setBase] = useState(opened.base);
  const [initial, setInitial] = useState(opened.text);
  const [editorKey, setEditorKey] = useState(0);

  useEffect(() => {
    engine.setActivity({ editing: node.id });
    return () => engine.setActivity({ editing: null });
  }, [engine, node.id]);

  const rebase = () => setBase({ version: serverVersion(), content: node.content });
  const changed = node.content !== base.content;

  const commit = (value: string) => {
    actions.startEditing(null);
    // An untouched editor writes nothing, even when the node changed meanwhile.
    if (value === base.content && value === opened.text) return;
    if (value === node.content) return;
    actions.submit({ type: 'node.update', id: node.id, fields: { content: value }, ...(base.version != null ? { base_version: base.version } : {}) });
  };

  const split = (value: string) => {
    actions.startEditing(null);
    for (const op of splitOps(node, value, base.version, engine.getSnapshot().doc.nodes.values(), actions.measure)) actions.submit(op);
  };

  const notice = changed ? (
    <div className="editor-changed" role="status" data-testid="editor-changed">
      <div>
        <Trans t={t} i18nKey="cardEditor.changed" components={{ b: <strong /> }} />
      </div>
      <div className="editor-changed-text" dir="auto" data-testid="editor-changed-text">
        {snippet(node.content, 240) || t('conflict.empty')}
      </div>
      <div className="editor-changed-actions">
        <button
          type="button"
          className="btn btn-small"
          data-testid="editor-take-theirs"
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => {
            rebase();
            setInitial(node.content);
            setEditorKey((k) => k + 1);
          }}
        >
          {t('cardEditor.useTheirs')}
        </button>
        <button type="button" className="btn btn-small" data-testid="editor-keep-mine" onMouseDown={(e) => e.preventDefault()} onClick={rebase}>
          {t('conflict.keepMine')}
        </button>
      </div>
    </div>
  ) : null;

  return (
    <NodeEditor
      key={editorKey}
      initial={initial}
      placeholder={t('cardEditor.placeholder')}
      message={editorKey === 0 ? opened.message : null}
      notice={notice}
      onCommit={commit}
      onCancel={() => actions.startEditing(null)}
      onSplit={split}
    />
  );
}
