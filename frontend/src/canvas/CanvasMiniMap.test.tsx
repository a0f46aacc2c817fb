// The mini map starts collapsed on a canvas area under 720 px, unless the user left a choice.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CanvasMiniMap, OPEN_KEY } from './CanvasMiniMap';

let root: Root | null = null;
let host: HTMLDivElement | null = null;
let paneWidth = 1000;

// React Flow measures its pane (style width 100%) by offsetWidth; jsdom's stub (test/setup.ts) reads
// inline px only, so a 100% box measures as `paneWidth` here.
const stub = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'offsetWidth')!;
beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'offsetWidth', {
    configurable: true,
    get(this: HTMLElement) {
      return this.style.width === '100%' ? paneWidth : stub.get!.call(this);
    },
  });
});
afterAll(() => Object.defineProperty(HTMLElement.prototype, 'offsetWidth', stub));

afterEach(async () => {
  await act(async () => root?.unmount());
  host?.remove();
  root = host = null;
  localStorage.removeItem(OPEN_KEY);
});

/** A flow whose pane measures `width` px. */
async function render(width: number) {
  paneWidth = width;
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  await act(async () =>
    root!.render(
      <ReactFlowProvider>
        <ReactFlow nodes={[{ id: 'a', position: { x: 0, y: 0 }, data: {} }]} edges={[]}>
          <CanvasMiniMap />
        </ReactFlow>
      </ReactFlowProvider>,
    ),
  );
}

const map = () => host!.querySelector('.react-flow__minimap');
const toggle = () => host!.querySelector('[data-testid="minimap-toggle"]') as HTMLButtonElement;

describe('CanvasMiniMap', () => {
  it('is open on a wide canvas area', async () => {
    await render(1000);
    expect(map()).not.toBeNull();
    expect(toggle().getAttribute('aria-pressed')).toBe('true');
  });

  it('starts collapsed under 720 px, can be expanded, and only the toggle is remembered', async () => {
    await render(719);
    expect(map()).toBeNull();
    expect(toggle().getAttribute('aria-pressed')).toBe('false');
    expect(localStorage.getItem(OPEN_KEY)).toBeNull();
    await act(async () => toggle().click());
    expect(map()).not.toBeNull();
    expect(localStorage.getItem(OPEN_KEY)).toBe('1');
  });

  it('a stored choice wins over the width', async () => {
    localStorage.setItem(OPEN_KEY, '1');
    await render(600);
    expect(map()).not.toBeNull();
    await act(async () => root!.unmount());
    host!.remove();
    localStorage.setItem(OPEN_KEY, '0');
    await render(1000);
    expect(map()).toBeNull();
  });
});
