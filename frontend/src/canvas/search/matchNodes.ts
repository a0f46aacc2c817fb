// Find over node text (content and tags), English and Chinese alike:
// case-insensitive substring per term (so a CJK term matches inside a run of
// Han characters), ranked whole-word matches first, then by where they start.
import type { CanvasNode } from '../../api/types';

export interface SearchHit {
  node: CanvasNode;
  score: number;
  /** [start, end) of the first term in the content, for highlighting */
  at: [number, number] | null;
}

export const normalize = (s: string) => s.normalize('NFKC').toLocaleLowerCase();

const WORD = /[\p{L}\p{N}_]/u;
const HAN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function isWordMatch(text: string, start: number, end: number): boolean {
  const term = text.slice(start, end);
  if (HAN.test(term)) return true; // CJK has no spaces: a substring is a word match
  const before = start > 0 ? text[start - 1] : '';
  const after = end < text.length ? text[end] : '';
  return !(before && WORD.test(before)) && !(after && WORD.test(after));
}

export function terms(query: string): string[] {
  return normalize(query).split(/\s+/u).filter(Boolean);
}

/** Every term must occur in the content or a tag. Archived nodes rank after live ones. */
export function matchNodes(nodes: Iterable<CanvasNode>, query: string, limit = 30): SearchHit[] {
  const ts = terms(query);
  if (!ts.length) return [];
  const hits: SearchHit[] = [];
  for (const node of nodes) {
    const content = normalize(node.content ?? '');
    const tags = normalize((node.tags ?? []).join(' '));
    let score = 0;
    let at: [number, number] | null = null;
    let ok = true;
    for (const t of ts) {
      const i = content.indexOf(t);
      if (i >= 0) {
        score += isWordMatch(content, i, i + t.length) ? 10 : 4;
        score += Math.max(0, 3 - i / 40);
        at ??= [i, i + t.length];
      } else if (tags.includes(t)) {
        score += 2;
      } else {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    if (node.archived || node.superseded_by) score -= 6;
    hits.push({ node, score, at });
  }
  hits.sort((a, b) => b.score - a.score || a.node.content.length - b.node.content.length || a.node.id.localeCompare(b.node.id));
  return hits.slice(0, limit);
}
