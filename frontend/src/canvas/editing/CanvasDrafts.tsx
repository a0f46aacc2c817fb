// Drafts that live only on this screen until saved: a new note (double-click on
// the empty canvas) and a new version of a note (supersede). Escape cancels
// either; an empty new note is never sent.
import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { LIMITS, type CanvasNode, type Op } from '../../api/types';
import { isComposing, snippet } from '../../lib/format';
import type { Doc } from '../../sync/apply';
import { newEntityId } from '../../sync/engine';
import { useCanvasActions } from '../context';
import { weightStyle } from '../kinds';
import { NodeEditor } from '../NodeEditor';
import { findFreeSpot } from '../placement';
import { splitOps } from './CardEditor';
import { useEditSession, useEditSessionState, type NoteDraft } from './editSession';
import './editing.css';

interface Props {
  doc: Doc;
  /** flow position → position inside the canvas wrapper */
  toWrapper(p: { x: number; y: number }): { x: number; y: number };
}

export function CanvasDrafts({ doc, toWrapper }: Props) {
  const { noteDraft, supersedeOf } = useEditSessionState();
  const old = supersedeOf ? doc.nodes.get(supersedeOf) : undefined;
  return (
    <>
      {noteDraft && <NewNoteDraft draft={noteDraft} doc={doc} at={toWrapper(noteDraft)} />}
      {supersedeOf && <SupersedeDraft key={supersedeOf} old={old} doc={doc} />}
    </>
  );
}

/** Ops that create a new note holding `text` at (x, y), split into several notes past the limit. */
export function newNoteOps(text: string, x: number, y: number, doc: Doc): { id: string; ops: Op[] } {
  const id = newEntityId();
  const draftNode = { id, content: '', kind: 'note', x, y, weight: 1, tags: [], sensitivity: 'public' } as unknown as CanvasNode;
  const [first, ...rest] = splitOps(draftNode, text, null, doc.nodes.values());
  const content = first.type === 'node.update' ? (first.fields.content as string) : text;
  return { id, ops: [{ type: 'node.create', node: { id, content, kind: 'note', x, y } }, ...rest] };
}

const EDGE_GAP = 8;

/**
 * Where to draw a box meant to sit at `at` inside its positioned parent so that all of it stays visible:
 * a draft opened near the bottom or right edge (or grown by a long paste) moves up / left instead of
 * running off the canvas with its counter and "Split" out of sight. Follows the box's and parent's size.
 */
export function useKeepInside(ref: RefObject<HTMLElement | null>, at: { x: number; y: number }) {
  const [pos, setPos] = useState(at);
  const { x: atX, y: atY } = at;
  useLayoutEffect(() => {
    const at = { x: atX, y: atY };
    const el = ref.current;
    const parent = el?.offsetParent as HTMLElement | null | undefined;
    if (!el || !parent) {
      setPos((p) => (p.x === at.x && p.y === at.y ? p : at));
      return;
    }
    const fit = () => {
      const x = Math.max(EDGE_GAP, Math.min(at.x, parent.clientWidth - el.offsetWidth - EDGE_GAP));
      const y = Math.max(EDGE_GAP, Math.min(at.y, parent.clientHeight - el.offsetHeight - EDGE_GAP));
      setPos((p) => (p.x === x && p.y === y ? p : { x, y }));
    };
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(el);
    observer.observe(parent);
    return () => observer.disconnect();
  }, [ref, atX, atY]);
  return pos;
}

function NewNoteDraft({ draft, doc, at }: { draft: NoteDraft; doc: Doc; at: { x: number; y: number } }) {
  const { t } = useTranslation('editing');
  const box = useRef<HTMLDivElement>(null);
  const pos = useKeepInside(box, at);
  const session = useEditSession();
  const { submit, selectOnly } = useCanvasActions();
  const save = (value: string) => {
    session.closeNoteDraft();
    if (!value.trim()) return; // an empty note that was never written is not sent
    const { id, ops } = newNoteOps(value, draft.x, draft.y, doc);
    for (const op of ops) submit(op);
    selectOnly([id]);
  };
  return (
    <div ref={box} className="note-draft node-card kind-note editing" style={{ left: pos.x, top: pos.y, width: weightStyle(1).width }} data-testid="note-draft">
      <div className="note-draft-head">{t('drafts.newNoteHead')}</div>
      <NodeEditor
        initial={draft.text}
        message={draft.message}
        placeholder={t('cardEditor.placeholder')}
        onCommit={save}
        onCancel={() => session.closeNoteDraft()}
        onSplit={save}
      />
    </div>
  );
}

function SupersedeDraft({ old, doc }: { old: CanvasNode | undefined; doc: Doc }) {
  const { t } = useTranslation('editing');
  const session = useEditSession();
  const { submit, selectOnly, measure } = useCanvasActions();
  const [value, setValue] = useState(old?.content ?? '');
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);

  const problem = !old
    ? t('drafts.gone')
    : old.superseded_by
      ? t('drafts.alreadySuperseded')
      : null;
  const over = value.length > LIMITS.contentMax;
  const unchanged = !!old && value === old.content;
  const canSave = !problem && !over && !unchanged && value.trim().length > 0;

  const save = () => {
    if (!old || !canSave) return;
    const id = newEntityId();
    const spot = findFreeSpot(old, doc.nodes.values(), { w: weightStyle(old.weight).width }, measure);
    submit({
      type: 'node.supersede',
      id: old.id,
      node: { id, content: value, kind: old.kind, x: spot.x, y: spot.y, weight: old.weight, tags: old.tags, pinned: old.pinned, sensitivity: old.sensitivity },
    });
    session.closeSupersede();
    selectOnly([id]);
  };

  return (
    <div
      className="supersede-draft"
      role="dialog"
      aria-label={t('drafts.newVersion')}
      data-testid="supersede-draft"
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Escape' && !isComposing(e)) {
          e.preventDefault();
          session.closeSupersede();
        } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !isComposing(e)) {
          e.preventDefault();
          save();
        }
      }}
    >
      <div className="supersede-draft-head">
        <Trans
          t={t}
          i18nKey="drafts.newVersionOf"
          values={{ what: snippet(old?.content ?? '', 60) || t('drafts.emptyNote') }}
          components={{
            b: <strong />,
            q: <q dir="auto" />,
          }}
        />
      </div>
      <textarea
        ref={ref}
        dir="auto"
        className="supersede-draft-text"
        value={value}
        rows={5}
        aria-label={t('drafts.newVersionText')}
        data-testid="supersede-draft-text"
        onChange={(e) => setValue(e.target.value)}
      />
      {problem && <div className="node-editor-message" role="alert">{problem}</div>}
      {over && (
        <div className="node-editor-limit blocked" role="alert">
          {t('drafts.overLimit', { length: value.length.toLocaleString(), max: LIMITS.contentMax.toLocaleString() })}
        </div>
      )}
      <div className="supersede-draft-foot">
        <span className="muted small">{unchanged ? t('drafts.unchanged') : t('drafts.keysHint')}</span>
        <button className="btn btn-small" onClick={() => session.closeSupersede()} data-testid="supersede-cancel">
          {t('drafts.cancel')}
        </button>
        <button className="btn btn-small btn-primary" onClick={save} disabled={!canSave} data-testid="supersede-save">
          {t('drafts.save')}
        </button>
      </div>
    </div>
  );
}
