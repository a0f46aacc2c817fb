// Raw HTML in a reply is shown as the characters the model wrote, never parsed into elements
// (`<img onerror=…>` reads as text). A remark plugin: `html` nodes become text, block ones a paragraph.

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

const BLOCK_PARENTS = new Set(['root', 'blockquote', 'listItem']);

function transform(node: MdNode): void {
  if (!node.children) return;
  node.children = node.children.map((child) => {
    if (child.type !== 'html') {
      transform(child);
      return child;
    }
    const text: MdNode = { type: 'text', value: child.value ?? '' };
    return BLOCK_PARENTS.has(node.type) ? { type: 'paragraph', children: [text] } : text;
  });
}

export function remarkHtmlAsText() {
  return (tree: MdNode) => transform(tree);
}
