// Highlights a node's card for a moment. The card may not be in the DOM yet
// (React Flow renders only visible nodes on big canvases), so retry briefly.
// A data attribute, not a class: React Flow rewrites the node's className.
const FLASH_MS = 2400;

export function flashNode(id: string, tries = 30): void {
  const el = document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
  if (!el) {
    if (tries > 0) setTimeout(() => flashNode(id, tries - 1), 50);
    return;
  }
  el.dataset.searchFlash = '1';
  setTimeout(() => {
    delete el.dataset.searchFlash;
  }, FLASH_MS);
}
