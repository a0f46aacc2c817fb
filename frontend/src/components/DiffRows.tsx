// Field-by-field "before → after" rows, shared by proposals and history.
import i18n from 'i18next';

// Catalogue keys (panels:fields.*); looked up on each call so labels follow the active language.
const FIELD_LABELS: Record<string, string> = {
  content: 'panels:fields.content',
  kind: 'panels:fields.kind',
  weight: 'panels:fields.weight',
  tags: 'panels:fields.tags',
  pinned: 'panels:fields.pinned',
  sensitivity: 'panels:fields.sensitivity',
  archived: 'panels:fields.archived',
  superseded_by: 'panels:fields.supersededBy',
  source: 'panels:fields.source',
  target: 'panels:fields.target',
  relation: 'panels:fields.relation',
  label: 'panels:fields.label',
  position: 'panels:fields.position',
};

export function fieldLabel(field: string): string {
  const key = FIELD_LABELS[field];
  return key ? i18n.t(key) : field.replace(/_/g, ' ');
}

const ENUM_PREFIX: Record<string, string> = { kind: 'canvas:kinds.', sensitivity: 'canvas:sensitivity.', relation: 'canvas:relations.', role: 'common:roles.' };

export function formatValue(v: unknown, field?: string): string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'boolean') return v ? i18n.t('panels:fields.yes') : i18n.t('panels:fields.no');
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 100) / 100);
  if (Array.isArray(v)) return v.length ? v.map((x) => (field === 'tags' ? `#${x}` : String(x))).join(' ') : '—';
  // Wire values of enumerated fields in the UI language (unknown values as they are).
  if (typeof v === 'string' && field && ENUM_PREFIX[field] && i18n.exists(`${ENUM_PREFIX[field]}${v}`)) return i18n.t(`${ENUM_PREFIX[field]}${v}`);
  if (typeof v === 'string') return field === 'relation' ? v.replace(/_/g, ' ') : v;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

export interface DiffRow {
  field: string;
  before: unknown;
  after: unknown;
}

/** Position changes read better as one row. */
function mergePosition(rows: DiffRow[]): (DiffRow & { text?: [string, string] })[] {
  const x = rows.find((r) => r.field === 'x');
  const y = rows.find((r) => r.field === 'y');
  if (!x || !y) return rows;
  const fmt = (a: unknown, b: unknown) => (a == null && b == null ? '—' : `(${formatValue(a)}, ${formatValue(b)})`);
  const merged = { field: 'position', before: null, after: null, text: [fmt(x.before, y.before), fmt(x.after, y.after)] as [string, string] };
  const out: (DiffRow & { text?: [string, string] })[] = [];
  for (const r of rows) {
    if (r.field === 'x') out.push(merged);
    else if (r.field !== 'y') out.push(r);
  }
  return out;
}

export function DiffRows({ rows, mode = 'update', testId }: { rows: DiffRow[]; mode?: 'update' | 'created' | 'deleted'; testId?: string }) {
  if (!rows.length) return null;
  return (
    <dl className={`diff-rows diff-${mode}`} data-testid={testId}>
      {mergePosition(rows).map((r) => {
        const before = r.text ? r.text[0] : formatValue(r.before, r.field);
        const after = r.text ? r.text[1] : formatValue(r.after, r.field);
        const long = r.field === 'content' || before.length + after.length > 40;
        return (
          <div key={r.field} className={`diff-row${long ? ' long' : ''}`} data-field={r.field}>
            <dt>{fieldLabel(r.field)}</dt>
            <dd>
              {mode !== 'created' && <span className={mode === 'deleted' ? 'diff-value' : 'diff-before'}>{before}</span>}
              {mode === 'update' && <span className="diff-arrow">→</span>}
              {mode !== 'deleted' && <span className={mode === 'created' ? 'diff-value' : 'diff-after'}>{after}</span>}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
