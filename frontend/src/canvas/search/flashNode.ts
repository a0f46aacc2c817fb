// Highlights a node's card for a moment. The card may not be in the DOM yet
// (React Flow renders only visible nodes on big canvases), so retry briefly.
const FLASH_MS = 2400;

export function flashNode(id: string, tries = 30): void {
  const el = document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
  if (!el) {
    if (tries > 0) setTimeout(() => flashNode(id, tries - 1), 50);
    return;
  }
  el.classList.add('search-flash');
  el.dataset.searchFlash = '1';
  setTimeout(() => {
    el.classList.remove('search-flash');
    delete el.dataset.searchFlash;
  }, FLASH_MS);
}
