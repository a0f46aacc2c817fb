import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { byTestId, flush, node, q, renderCanvas, installCanvasHarness } from '../../test/canvasHarness';
import { handle } from '../../lib/testHooks';
import { opAs, type FakeSocket } from '../../test/fakeSocket';

installCanvasHarness();

const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!;

async function type(el: HTMLTextAreaElement, text: string) {
  await act(async () => {
    setter.call(el, text);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function key(el: Element, k: string, extra: KeyboardEventInit = {}) {
  await act(async () => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, ...extra }));
  });
}

async function click(el: Element | null) {
  await act(async () => {
    (el as HTMLElement).click();
  });
}

async function openEditor(id: string) {
  await act(async () => {
    byTestId(`node-${id}`)!.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
  });
  await flush();
  const editor = byTestId('node-editor') as HTMLTextAreaElement;
  expect(editor).not.toBeNull();
  return editor;
}

function lastOp(sock: FakeSocket) {
  const ops = sock.sentOfType('op');
  return ops[ops.length - 1];
}

describe('editing together', { timeout: 20_000 }, () => {
  it('sends base_version and turns a CONFLICT into a choice: keep mine rebases on the current version', async () => {
    const sock = await renderCanvas();
    const editor = await openEditor('n-new');
    await type(editor, 'Launch on Friday');
    await key(editor, 'Enter');
    const sent = lastOp(sock);
    expect(sent.op).toEqual({ type: 'node.update', id: 'n-new', fields: { content: 'Launch on Friday' }, base_version: 1 });
    const current = node('n-new', { content: 'Launch on Thursday', kind: 'decision', x: 300, y: 200, version: 2 });
    await act(async () => {
      sock.receive({ type: 'reject', client_op_id: sent.client_op_id, error: { code: 'CONFLICT', message: 'edited by someone else', field: 'fields.content', current } });
    });
    const dialog = byTestId('conflict-dialog')!;
    expect(dialog.querySelector('[data-testid="conflict-theirs"]')?.textContent).toContain('Launch on Thursday');
    expect(dialog.querySelector('[data-testid="conflict-mine"]')?.textContent).toContain('Launch on Friday');
    // The dialog is the message: no generic "conflicts with an existing item" toast.
    expect(document.querySelector('[data-testid="toast"]')).toBeNull();
    await click(byTestId('conflict-keep-mine'));
    expect(lastOp(sock).op).toEqual({ type: 'node.update', id: 'n-new', fields: { content: 'Launch on Friday' }, base_version: 2 });
    expect(byTestId('conflict-dialog')).toBeNull();
  });

  it('"both" reopens the editor with their text and mine, based on the current version', async () => {
    const sock = await renderCanvas();
    const editor = await openEditor('n-new');
    await type(editor, '周五发布');
    await key(editor, 'Enter');
    const current = node('n-new', { content: '周四发布', kind: 'decision', x: 300, y: 200, version: 3 });
    await act(async () => {
      sock.receive({ type: 'reject', client_op_id: lastOp(sock).client_op_id, error: { code: 'CONFLICT', message: 'stale', field: 'fields.content', current } });
    });
    await click(byTestId('conflict-merge'));
    await flush();
    const merged = byTestId('node-editor') as HTMLTextAreaElement;
    expect(merged.value).toBe('周四发布\n\n周五发布');
    await type(merged, '周四或周五发布');
    await key(merged, 'Enter');
    expect(lastOp(sock).op).toEqual({ type: 'node.update', id: 'n-new', fields: { content: '周四或周五发布' }, base_version: 3 });
  });

  it('an open editor shows when the node changed underneath, and says who is editing to the others', async () => {
    const sock = await renderCanvas();
    sock.clearSent();
    await act(async () => {
      sock.receive({ type: 'presence', connection_id: 'bob-1', user: { id: 2, username: 'bob' }, color: '#e76f51', viewport: null, cursor: null, editing: 'n-db', dragging: null });
    });
    expect(byTestId('node-n-db')!.querySelector('[data-testid="badge-peer-editing"]')?.textContent).toContain('bob');

    const editor = await openEditor('n-new');
    await act(async () => {
      await new Promise((r) => setTimeout(r, 120)); // presence is throttled
    });
    expect(sock.sentOfType('presence').some((p) => p.editing === 'n-new')).toBe(true);
    await act(async () => {
      sock.receive({
        type: 'change', revision: 4, client_op_id: 'bob-9', actor: { kind: 'user', user: { id: 2, username: 'bob' } }, at: '',
        changes: [{ entity: 'node', action: 'updated', id: 'n-new', fields: ['content'], data: node('n-new', { content: 'Launch on Tuesday', kind: 'decision', x: 300, y: 200, version: 2 }) }],
      });
    });
    expect(byTestId('editor-changed-text')?.textContent).toContain('Launch on Tuesday');
    await click(byTestId('editor-take-theirs'));
    expect((byTestId('node-editor') as HTMLTextAreaElement).value).toBe('Launch on Tuesday');
    expect(editor.isConnected).toBe(false);
  });

  it('over the limit, Enter keeps the text in the editor and split saves every part', async () => {
    const sock = await renderCanvas();
    const editor = await openEditor('n-new');
    const long = '第一段内容。'.repeat(3000); // 18,000 characters
    await type(editor, long);
    sock.clearSent();
    await key(editor, 'Enter');
    expect(sock.sentOfType('op')).toHaveLength(0);
    expect(byTestId('node-editor')).not.toBeNull();
    expect(byTestId('editor-over-limit')?.className).toContain('blocked');
    await act(async () => editor.dispatchEvent(new FocusEvent('blur')));
    expect(byTestId('node-editor')).not.toBeNull();
    await click(byTestId('editor-split'));
    const ops = sock.sentOfType('op').map((f) => f.op);
    expect(ops.map((o) => o.type)).toEqual(['node.update', 'node.create']);
    const update = opAs(ops[0], 'node.update');
    const create = opAs(ops[1], 'node.create');
    expect(update.fields.content!.length).toBeLessThanOrEqual(10_000);
    expect(update.fields.content! + create.node.content).toBe(long);
  });

  it('supersede opens a prefilled draft; Escape cancels, Save commits once', async () => {
    const sock = await renderCanvas();
    await act(async () => {
      byTestId('node-n-new')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    });
    await flush();
    sock.clearSent();
    await click(byTestId('inspector-supersede'));
    const text = byTestId('supersede-draft-text') as HTMLTextAreaElement;
    expect(text.value).toBe('Launch on Wednesday');
    expect((byTestId('supersede-save') as HTMLButtonElement).disabled).toBe(true);
    await key(text, 'Escape');
    expect(byTestId('supersede-draft')).toBeNull();
    expect(sock.sentOfType('op')).toHaveLength(0);

    await click(byTestId('inspector-supersede'));
    const again = byTestId('supersede-draft-text') as HTMLTextAreaElement;
    await type(again, 'Launch on Thursday');
    await click(byTestId('supersede-save'));
    const [frame] = sock.sentOfType('op');
    expect(frame.op.type).toBe('node.supersede');
    const supersede = opAs(frame.op, 'node.supersede');
    expect(supersede.id).toBe('n-new');
    expect(supersede.node.content).toBe('Launch on Thursday');
    expect(byTestId('supersede-draft')).toBeNull();
  });

  it('shows a peer dragging a node where their pointer is', async () => {
    const sock = await renderCanvas();
    await act(async () => {
      sock.receive({ type: 'presence', connection_id: 'bob-1', user: { id: 2, username: 'bob' }, color: '#e76f51', viewport: null, cursor: null, editing: null, dragging: { id: 'n-key', x: 640, y: 90 } });
    });
    await flush();
    const wrapper = q('.react-flow__node[data-id="n-key"]')!;
    expect(wrapper.style.transform).toMatch(/translate\(640px,\s*90px\)/);
  });

  it('Ctrl+A selects every card, and pinned + secret together shows a warning', async () => {
    await renderCanvas();
    await key(window.document.body, 'a', { ctrlKey: true });
    await flush();
    expect(byTestId('node-n-db')!.className).toContain('selected');
    expect(byTestId('node-n-key')!.className).toContain('selected');
    await act(async () => {
      handle.submit({ type: 'node.update', id: 'n-key', fields: { pinned: true } });
    });
    await act(async () => handle.focusNode('n-key'));
    await flush();
    expect(byTestId('pinned-secret-warning')?.textContent).toContain('never sent');
  });
});
