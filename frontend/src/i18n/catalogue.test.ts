// Guards for the catalogues: every key exists in both languages, none is unused, and new JSX text is
// written through t(). Failures print file:line so a merge is easy to act on.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resources, NAMESPACES } from './resources';
import { KNOWN_ERROR_CODES } from './errors';
import { CHAT_ERROR_CODES } from '../chat/ChatMessage';

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
    const text = sourceFiles().map((f) => readFileSync(f, 'utf8')).join('\n');
    const literals = new Set<string>();
    for (const m of text.matchAll(/['"`]([a-z][\w-]*:)?([a-zA-Z][\w]*(?:\.[\w-]+)+|[a-zA-Z]\w*)['"`]/g)) literals.add(`${m[1] ?? ''}${m[2]}`);
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
