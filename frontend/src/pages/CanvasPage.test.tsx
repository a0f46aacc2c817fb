import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { byTestId, installCanvasHarness, q, renderCanvas } from '../test/canvasHarness';
import { opAs } from '../test/fakeSocket';
import { handle } from '../lib/testHooks';

installCanvasHarness();

describe('CanvasPage', () => {
  it('renders the snapshot with React Flow: nodes, kinds, badges, CJK text and status', async () => {
    await renderCanvas();
    expect(q('.react-flow')).not.toBeNull();
    // jsdom measures the pane at 100 px, a narrow canvas: the map starts collapsed (CanvasMiniMap.test.tsx).
    expect(byTestId('minimap-toggle')?.getAttribute('aria-pressed')).toBe('false');
    expect(q('.react-flow__controls')).not.toBeNull();

    const db = byTestId('node-n-db')!;
    expect(db.textContent).toContain('数据库端口是 5433');
    expect(db.querySelector('[data-testid="node-kind"]')?.textContent).toBe('Config');
    expect(db.querySelector('[data-testid="badge-pinned"]')).not.toBeNull();
    expect(db.querySelector('[data-testid="badge-sensitivity"]')?.textContent).toContain('Internal');
    expect(db.textContent).toContain('#db');

    const old = byTestId('node-n-old')!;
    expect(old.className).toContain('superseded');
    expect(old.querySelector('[data-testid="superseded-link"]')?.textContent).toContain('Launch on Wednesday');

    expect(byTestId('node-n-new')!.querySelector('[data-testid="badge-agent"]')).not.toBeNull();
    const key = byTestId('node-n-key')!;
    expect(key.className).toContain('archived');
    expect(key.querySelector('[data-testid="badge-sensitivity"]')?.textContent).toContain('Secret');

    expect(byTestId('connection-status')?.textContent).toBe('online');
    expect(byTestId('pending-count')?.textContent).toBe('0');
    expect(byTestId('canvas-name')?.textContent).toBe('发布计划');
    expect(byTestId('readonly-badge')).toBeNull();
  });

  it('exposes window.__canvasweb and goes offline on demand', async () => {
    await renderCanvas();
    const st = handle.getState();
    expect(st.revision).toBe(3);
    expect(st.nodes.map((n) => n.id).sort()).toEqual(['n-db', 'n-key', 'n-new', 'n-old']);
    await act(async () => handle.goOffline());
    expect(byTestId('connection-status')?.textContent).toBe('offline');
    await act(async () => {
      handle.submit({ type: 'node.move', id: 'n-db', x: 10, y: 10 });
    });
    expect(byTestId('pending-count')?.textContent).toBe('1');
  });

  it('opens a new-note draft on double-click and creates the node only when saved with text', async () => {
    const sock = await renderCanvas();
    sock.clearSent();
    const pane = q('.react-flow__pane')!;
    await act(async () => {
      pane.dispatchEvent(new MouseEvent('dblclick', { bubbles: true, clientX: 300, clientY: 200 }));
    });
    // Nothing is sent for a note that was never written.
    expect(sock.sentOfType('op')).toHaveLength(0);
    expect(byTestId('note-draft')).not.toBeNull();

    const editor = byTestId('node-editor') as HTMLTextAreaElement;
    expect(editor).not.toBeNull();
    // typing through React's synthetic change event
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!;
    await act(async () => {
      setter.call(editor, '新的需求');
      editor.dispatchEvent(new Event('input', { bubbles: true }));
    });
    // Enter that confirms an IME candidate (Chinese input) must not commit.
    await act(async () => {
      editor.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, isComposing: true }));
    });
    expect(sock.sentOfType('op')).toHaveLength(0);
    expect(byTestId('node-editor')).not.toBeNull();
    await act(async () => {
      editor.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    });
    const [create] = sock.sentOfType('op');
    expect(create.op.type).toBe('node.create');
    const created = opAs(create.op, 'node.create');
    expect(created.node.kind).toBe('note');
    expect(created.node.content).toBe('新的需求');
    const id = created.node.id as string;
    expect(id).toMatch(/[0-9a-f-]{36}/);
    expect(byTestId('note-draft')).toBeNull();
    expect(byTestId(`node-${id}`)?.textContent).toContain('新的需求');
  });

  it('Escape after a double-click discards the empty new note', async () => {
    const sock = await renderCanvas();
    sock.clearSent();
    await act(async () => {
      q('.react-flow__pane')!.dispatchEvent(new MouseEvent('dblclick', { bubbles: true, clientX: 300, clientY: 200 }));
    });
    const editor = byTestId('node-editor') as HTMLTextAreaElement;
    await act(async () => {
      editor.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    expect(byTestId('note-draft')).toBeNull();
    expect(sock.sentOfType('op')).toHaveLength(0);
    expect(handle.getState().nodes).toHaveLength(4);
  });

  it('shows a toast when the server rejects an edit and rolls it back', async () => {
    const sock = await renderCanvas();
    let opId = '';
    await act(async () => {
      opId = handle.submit({ type: 'node.update', id: 'n-db', fields: { content: 'x'.repeat(10_001) } })!;
    });
    await act(async () => {
      sock.receive({ type: 'reject', client_op_id: opId, error: { code: 'INVALID', message: 'content must be at most 10000 characters', field: 'content' } });
    });
    const toast = document.querySelector('[data-testid="toast"]');
    expect(toast?.textContent).toContain('content must be at most 10000 characters');
    // The rejected text is not lost: the editor reopens on the node holding it.
    const editor = byTestId('node-editor') as HTMLTextAreaElement;
    expect(editor?.value).toBe('x'.repeat(10_001));
    expect(byTestId('editor-restored')?.textContent).toContain('Not saved');
    expect(byTestId('editor-over-limit')).not.toBeNull();
  });

  it('selects a node into the inspector and deletes it with the Delete key', async () => {
    const sock = await renderCanvas();
    sock.clearSent();
    await act(async () => {
      handle.focusNode('n-db');
    });
    expect(byTestId('node-inspector')).not.toBeNull();
    expect((byTestId('inspector-kind') as HTMLSelectElement).value).toBe('config');
    expect(byTestId('inspector-created-by')?.textContent).toContain('alice');
    expect((byTestId('inspector-pinned') as HTMLInputElement).checked).toBe(true);

    await act(async () => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Delete', bubbles: true }));
    });
    expect(sock.sentOfType('op')[0].op).toEqual({ type: 'node.delete', id: 'n-db' });
    expect(byTestId('node-n-db')).toBeNull();
  });

  it('is read-only for viewers', async () => {
    const sock = await renderCanvas('viewer');
    sock.clearSent();
    expect(byTestId('readonly-badge')?.textContent).toContain('read-only');
    await act(async () => {
      q('.react-flow__pane')!.dispatchEvent(new MouseEvent('dblclick', { bubbles: true, clientX: 10, clientY: 10 }));
    });
    await act(async () => {
      handle.focusNode('n-db');
    });
    await act(async () => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Delete', bubbles: true }));
    });
    expect(sock.sentOfType('op')).toHaveLength(0);
    expect(byTestId('inspector-delete')).toBeNull();
    expect((byTestId('inspector-kind') as HTMLSelectElement).disabled).toBe(true);
  });
});
