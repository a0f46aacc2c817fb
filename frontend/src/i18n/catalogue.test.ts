// Guards for the catalogues: every key exists in both languages, none is unused, and new JSX text is
// written through t(). Failures print file:line so a merge is easy to act on.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resources, NAMESPACES } from './resources';
import { KNOWN_ERROR_CODES } from './errors';
import { CHAT_ERROR_CODES } from '../chat/ChatMessage';
import { REJECT_CODES, SOCKET_ERROR_CODES } from './errors';
import { PROPOSAL_STATUSES, PROPOSAL_TOOLS } from '../agent/proposals';
import { REASON_LABELS } from '../canvas/NodeCard';

const SRC = join(__dirname, '..');
const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(obj: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    v && typeof v === 'object' ? flatten(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

/** ns:key without plural suffixes (Chinese has only _other, English _one and _other). */
function keySet(lang: 'en' | 'zh-Hans'): Set<string> {
  const out = new Set<string>();
  for (const ns of NAMESPACES) for (const k of flatten(resources[lang][ns] as Record<string, unknown>)) out.add(`${ns}:${k.replace(PLURAL, '')}`);
  return out;
}

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'locales' ? [] : sourceFiles(p);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) && !p.includes(`${join('src', 'test')}`) ? [p] : [];
  });
}

describe('i18n catalogues', () => {
  it('zh-Hans has every en key and no extra one', () => {
    const en = keySet('en');
    const zh = keySet('zh-Hans');
    const missing = [...en].filter((k) => !zh.has(k));
    const extra = [...zh].filter((k) => !en.has(k));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it('plural keys have the forms each language needs', () => {
    const problems: string[] = [];
    for (const ns of NAMESPACES) {
      const en = flatten(resources.en[ns] as Record<string, unknown>);
      const zh = new Set(flatten(resources['zh-Hans'][ns] as Record<string, unknown>));
      for (const k of en.filter((x) => x.endsWith('_one'))) {
        const base = k.replace(/_one$/, '');
        if (!en.includes(`${base}_other`)) problems.push(`en ${ns}:${base}_other`);
        if (!zh.has(`${base}_other`)) problems.push(`zh-Hans ${ns}:${base}_other`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every key is used somewhere in the source', () => {
    const literals = new Set<string>();
    for (const file of sourceFiles()) {
      const text = readFileSync(file, 'utf8');
      // A file-local helper such as `const t = (key) => i18n.t(`history:undo.${key}`)`: its literals are
      // keys under that prefix.
      const prefixes = [...text.matchAll(/i18n\.t\(`([a-z][\w-]*:[\w.]*)\$\{key\}`/g)].map((m) => m[1]);
      for (const m of text.matchAll(/['"`]([a-z][\w-]*:)?([a-zA-Z][\w]*(?:\.[\w-]+)+|[a-zA-Z]\w*)['"`]/g)) {
        literals.add(`${m[1] ?? ''}${m[2]}`);
        if (!m[1]) for (const prefix of prefixes) literals.add(`${prefix}${m[2]}`);
      }
    }
    // Keys built at run time: a namespace-relative prefix and the values it is filled with.
    const dynamic: [string, readonly string[]][] = [
      ['errors:', KNOWN_ERROR_CODES],
      ['common:roles.', ['owner', 'editor', 'viewer']],
      ['common:header.languages.', ['en', 'zh-Hans']],
      ['canvas:kinds.', ['fact', 'requirement', 'decision', 'config', 'question', 'note']],
      ['canvas:sensitivity.', ['public', 'internal', 'secret', 'publicHint', 'internalHint', 'secretHint']],
      ['canvas:connection.status.', ['online', 'reconnecting', 'offline']],
      ['chat:errorTitles.', CHAT_ERROR_CODES],
      ['chat:outcomes.', ['applied', 'proposed', 'read', 'refused']],
      ['canvas:relations.', ['depends_on', 'causes', 'conflicts_with', 'supersedes', 'relates_to']],
      ['canvas:inspector.author.', ['user', 'agent', 'import']],
      ['sync:reject.', [...REJECT_CODES, 'generic']],
      ['sync:error.', [...SOCKET_ERROR_CODES, 'generic']],
      ['panels:proposals.tools.', PROPOSAL_TOOLS],
      ['panels:proposals.status.', PROPOSAL_STATUSES],
      ['canvas:ctxReasons.', Object.values(REASON_LABELS)],
    ];
    const unused = [...keySet('en')].filter((full) => {
      const [ns, key] = full.split(':');
      if (dynamic.some(([prefix, values]) => values.some((v) => `${prefix}${v}` === full))) return false;
      return !(literals.has(full) || literals.has(key) || (ns === 'errors' && key === 'withDetail' && literals.has('errors:withDetail')));
    });
    expect(unused).toEqual([]);
  });
});

// ---- literal text in JSX ----
// Text between tags (>Save<) and user-facing attributes (title="…", aria-label="…", placeholder="…", label="…")
// must come from t(). Symbols, numbers and brand names are allowed.
const ALLOWED_TEXT = /^[\s\d·—–\-+×/:;,.()[\]{}#%@&|*!?…'"“”‘’←→↑↓⌘⌫⏎✓✕×▸▾•=<>]*$|^(Canvasweb|OK|JSON Canvas|MCP)$/;
const ATTRS = /\b(title|aria-label|placeholder|label|alt|confirmLabel)="([^"]*)"/g;

/** Files not yet wrapped: they are reported (file:line) but do not fail the test. Shrink this list; never grow it. */
export const NOT_YET_TRANSLATED = new Set<string>([
  'components/Icons.tsx',
]);

export function findLiterals(source: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  const lines = source.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\/\/.*$/, '').replace(/\{\/\*.*?\*\/\}/g, '');
    if (/^\s*(import|export type|type|interface|\*|\/\*)/.test(line)) return;
    // JSX text: after a closing ">" of a tag, or a whole line of bare text inside JSX.
    for (const m of line.matchAll(/>([^<>{}]+)</g)) {
      const text = m[1].trim();
      if (text && !ALLOWED_TEXT.test(text) && !/=>|&&|\|\||[=;]/.test(m[1])) found.push({ line: i + 1, text });
    }
    // Text after a self-closing or closing tag at the end of a line: `<BotIcon /> proposed change`.
    for (const m of line.matchAll(/(?:\/>|<\/\w+>)([^<>{}]+)$/g)) {
      const text = m[1].trim();
      if (text && !ALLOWED_TEXT.test(text) && !/=>|&&|\|\||[=;)]/.test(m[1])) found.push({ line: i + 1, text });
    }
    const bare = /^\s+([A-Za-z][^<>{}=;()]*[A-Za-z.!?…:])\s*$/.exec(line);
    if (bare && /[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(bare[1]) && !/^\s*(return|const|let|if|else|case|default|break|await|throw)\b/.test(line)) {
      const prev = lines.slice(Math.max(0, i - 3), i).join('\n');
      if (/>\s*$|\}\s*$|<\/?\w[^>]*>\s*$/.test(prev.trimEnd()) || /^\s*</.test(lines[i + 1] ?? '')) found.push({ line: i + 1, text: bare[1].trim() });
    }
    if (/<ErrorBoundary\b/.test(line)) return; // its label names the boundary in logs, never shown
    for (const m of line.matchAll(ATTRS)) if (m[2].trim() && !ALLOWED_TEXT.test(m[2])) found.push({ line: i + 1, text: `${m[1]}="${m[2]}"` });
  });
  return found;
}

describe('no literal UI text outside t()', () => {
  it('finds literals in a sample (the guard itself can fail)', () => {
    expect(findLiterals('  return <button title="Save it">Save</button>;').map((f) => f.text)).toEqual(['Save', 'title="Save it"']);
    expect(findLiterals("  return <span>{t('x')} · {n}</span>;")).toEqual([]);
  });

  it('every translated .tsx file has its text in the catalogues', () => {
    const offending: string[] = [];
    const pending: string[] = [];
    for (const file of sourceFiles().filter((f) => f.endsWith('.tsx'))) {
      const rel = relative(SRC, file).split('\\').join('/');
      for (const hit of findLiterals(readFileSync(file, 'utf8'))) {
        const where = `src/${rel}:${hit.line}  ${hit.text}`;
        (NOT_YET_TRANSLATED.has(rel) ? pending : offending).push(where);
      }
    }
    if (pending.length) console.warn(`[i18n] ${pending.length} literal(s) in files not yet translated:\n${pending.join('\n')}`);
    if (offending.length) console.error(`[i18n] wrap these in t():\n${offending.join('\n')}`);
    expect(offending).toEqual([]);
  });
});

// ---- English prose in string literals (.ts and .tsx) ----
// Toasts, notices, history wording, tooltips built in code: a literal that reads as an English phrase must
// come from the catalogues. Class names, keys, wire values and console/developer texts are not prose.
const PROSE_EXEMPT_DIRS = ['sync/fuzz/']; // a Node-run fuzz harness, never shown in the UI

export function findProse(source: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  let inBlock = false;
  source.split('\n').forEach((raw, i) => {
    let line = raw;
    if (inBlock) {
      if (!line.includes('*/')) return;
      inBlock = false;
      line = line.slice(line.indexOf('*/') + 2);
    }
    line = line.replace(/\/\*.*?\*\//g, '');
    if (line.includes('/*')) {
      inBlock = true;
      line = line.slice(0, line.indexOf('/*'));
    }
    if (/^\s*(\*|\/\/|import |export type )/.test(line) || /console\.(log|warn|error|info|debug)\(/.test(line)) return;
    line = line.replace(/(^|[^:'"`])\/\/.*$/, '$1');
    for (const m of line.matchAll(/(['"`])((?:\\.|(?!\1)[^\\\n])*)\1/g)) {
      const before = line.slice(0, m.index);
      if (/className(=\{?|:)\s*$/.test(before) || /className=\{[^}]*$/.test(before)) continue;
      const text = m[2].replace(/\$\{[^}]*\}/g, ' ').trim();
      const words = text.split(/\s+/).filter((w) => /^[A-Za-z][a-z']+[,.:;!?]?$/.test(w));
      const sentence = /^[A-Z][a-z]+\s+[a-z]/.test(text) || /[a-z]{2,}[.!?]$/.test(text) || words.length >= 3;
      if (sentence && /[a-z]{2,}\s+[a-z]{2,}/i.test(text)) found.push({ line: i + 1, text: m[0] });
    }
  });
  return found;
}

describe('no English prose in string literals outside the catalogues', () => {
  it('finds prose in a sample (the guard itself can fail)', () => {
    const sample = "  toast.error(`Paste at most ${n} nodes.`, 'Too many nodes');\n  const c = 'btn btn-small';\n  console.warn('could not keep edits');";
    expect(findProse(sample).map((f) => f.text)).toEqual(['`Paste at most ${n} nodes.`', "'Too many nodes'"]);
    expect(findProse("  return <div className=\"muted small panel-foot\">{t('x')}</div>;")).toEqual([]);
  });

  it('every source file words its messages through t()', () => {
    const offending: string[] = [];
    for (const file of sourceFiles()) {
      const rel = relative(SRC, file).split('\\').join('/');
      if (NOT_YET_TRANSLATED.has(rel) || PROSE_EXEMPT_DIRS.some((d) => rel.startsWith(d))) continue;
      for (const hit of findProse(readFileSync(file, 'utf8'))) offending.push(`src/${rel}:${hit.line}  ${hit.text}`);
    }
    if (offending.length) console.error(`[i18n] move these into the catalogues:\n${offending.join('\n')}`);
    expect(offending).toEqual([]);
  });
});
