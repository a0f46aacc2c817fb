// `[n3]` node handles in a model reply (docs/agent.md, "handles"): a remark plugin that turns them into
// links the Markdown renderer draws as node buttons. Only plain text is touched: inline code and code
// blocks are separate Markdown nodes, so handles inside them stay as written.

/** The href a handle link carries between the plugin and the renderer (never a real URL). */
export const NODE_REF_PREFIX = '#cw-node-ref-';

// [n3], [n3, n5], 【n3】 and [n3，n5] (Chinese punctuation next to the handles is common).
const REF_GROUP = /[[【]\s*(n\d{1,6}(?:\s*[,，、;；]\s*n\d{1,6})*)\s*[\]】]/g;
const HANDLE = /n\d{1,6}/g;

export type RefPiece = { text: string } | { handle: string };

/** Split text into plain pieces and handles; the brackets and separators of a group are dropped. */
export function splitNodeRefs(text: string): RefPiece[] {
  const out: RefPiece[] = [];
  let last = 0;
  for (const match of text.matchAll(REF_GROUP)) {
    const start = match.index ?? 0;
    if (start > last) out.push({ text: text.slice(last, start) });
    for (const h of match[1].match(HANDLE) ?? []) out.push({ handle: h });
    last = start + match[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

interface MdNode {
  type: string;
  value?: string;
  url?: string;
  children?: MdNode[];
}

// Parents whose text must not become links (a link inside a link is invalid).
const NO_REFS_INSIDE = new Set(['link', 'linkReference', 'definition']);

function transform(node: MdNode): void {
  if (!node.children || NO_REFS_INSIDE.has(node.type)) return;
  const merged: MdNode[] = [];
  for (const child of node.children) {
    const prev = merged[merged.length - 1];
    // The parser may cut "[n3]" into several text nodes around the brackets.
    if (child.type === 'text' && prev?.type === 'text') prev.value = (prev.value ?? '') + (child.value ?? '');
    else merged.push(child.type === 'text' ? { ...child } : child);
  }
  const next: MdNode[] = [];
  for (const child of merged) {
    if (child.type !== 'text' || !child.value) {
      transform(child);
      next.push(child);
      continue;
    }
    for (const piece of splitNodeRefs(child.value)) {
      if ('handle' in piece) next.push({ type: 'link', url: NODE_REF_PREFIX + piece.handle, children: [{ type: 'text', value: piece.handle }] });
      else next.push({ type: 'text', value: piece.text });
    }
  }
  node.children = next;
}

/** remark plugin: handles in text become `link` nodes with a NODE_REF_PREFIX url. */
export function remarkNodeRefs() {
  return (tree: MdNode) => transform(tree);
}

/** The handle of a NODE_REF_PREFIX href, or null. */
export function handleOfHref(href: string | undefined): string | null {
  if (!href || !href.startsWith(NODE_REF_PREFIX)) return null;
  const handle = href.slice(NODE_REF_PREFIX.length);
  return /^n\d{1,6}$/.test(handle) ? handle : null;
}
