// Ctrl+K / Ctrl+F: a find box over node text; Enter or a click jumps to the
// node and highlights it for a moment.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Doc } from '../../sync/apply';
import { kindMeta } from '../kinds';
import { matchNodes, type SearchHit } from './matchNodes';
import { flashNode } from './flashNode';
import { useTranslation } from 'react-i18next';

interface Props {
  doc: Doc;
  onPick(id: string): void;
}

function Snippet({ hit }: { hit: SearchHit }) {
  const text = hit.node.content || '(empty)';
  if (!hit.at) return <span className="search-text" dir="auto">{text.slice(0, 120)}</span>;
  // indices come from the normalized text; NFKC rarely changes lengths, so clamp
  const [s, e] = hit.at.map((i) => Math.min(i, text.length));
  const from = Math.max(0, s - 40);
  return (
    <span className="search-text" dir="auto">
      {from > 0 && '…'}
      {text.slice(from, s)}
      <mark>{text.slice(s, e)}</mark>
      {text.slice(e, e + 80)}
    </span>
  );
}

export function CanvasSearch({ doc, onPick }: Props) {
  const { t } = useTranslation('canvas');
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === 'k' || e.key === 'K' || e.key === 'f' || e.key === 'F')) {
        e.preventDefault();
        setOpen(true);
        requestAnimationFrame(() => inputRef.current?.select());
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const hits = useMemo(() => (open ? matchNodes(doc.nodes.values(), query) : []), [open, doc, query]);
  useEffect(() => setActive(0), [query]);

  if (!open) return null;

  const pick = (hit: SearchHit | undefined) => {
    if (!hit) return;
    onPick(hit.node.id);
    flashNode(hit.node.id);
    setOpen(false);
  };

  return (
    <div className="canvas-search" role="search" data-testid="canvas-search">
      <input
        ref={inputRef}
        autoFocus
        className="canvas-search-input"
        placeholder={t('search.placeholder')}
        aria-label={t('search.label')}
        data-testid="canvas-search-input"
        value={query}
        dir="auto"
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            setOpen(false);
          } else if (e.key === 'ArrowDown') {
            e.preventDefault();
            setActive((i) => Math.min(i + 1, Math.max(0, hits.length - 1)));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            setActive((i) => Math.max(0, i - 1));
          } else if (e.key === 'Enter') {
            e.preventDefault();
            pick(hits[active]);
          }
        }}
        onBlur={(e) => {
          if (!e.currentTarget.parentElement?.contains(e.relatedTarget as Node | null)) setOpen(false);
        }}
      />
      {query.trim() && (
        <ul className="canvas-search-results" role="listbox" aria-label={t('search.results')} data-testid="canvas-search-results">
          {hits.length === 0 && <li className="search-empty">{t('search.none')}</li>}
          {hits.map((h, i) => (
            <li key={h.node.id} role="option" aria-selected={i === active}>
              <button
                type="button"
                className={`search-hit${i === active ? ' active' : ''}`}
                data-testid="canvas-search-hit"
                onMouseEnter={() => setActive(i)}
                onClick={() => pick(h)}
              >
                <span className="search-kind" style={{ background: kindMeta(h.node.kind).color }} title={kindMeta(h.node.kind).label} />
                <Snippet hit={h} />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
