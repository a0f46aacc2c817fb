import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MarkdownText } from './MarkdownText';
import { splitNodeRefs } from './nodeRefs';

let container: HTMLDivElement;
let root: Root;

const KNOWN: Record<string, string> = { n1: 'node-port', n2: 'node-cache' };

async function render(text: string, onFocusNode = vi.fn()) {
  container = document.createElement('div');
  document.body.appendChild(container);
  root = createRoot(container);
  await act(async () => root.render(<MarkdownText text={text} resolve={(h) => KNOWN[h] ?? null} onFocusNode={onFocusNode} />));
  return onFocusNode;
}

afterEach(async () => {
  await act(async () => root.unmount());
  container.remove();
});

describe('MarkdownText', () => {
  it('renders bold, inline code, code blocks, lists and tables', async () => {
    await render('端口是 **6543**，用 `psql -p 6543` 连接。\n\n- 第一步\n- second step\n\n```\nSELECT 1;\n```\n\n| 键 | value |\n| --- | --- |\n| port | 6543 |');
    expect(container.querySelector('strong')?.textContent).toBe('6543');
    expect(container.querySelector('p code')?.textContent).toBe('psql -p 6543');
    expect(container.querySelectorAll('ul > li')).toHaveLength(2);
    expect(container.querySelector('pre code')?.textContent).toBe('SELECT 1;\n');
    expect(container.querySelector('table td')?.textContent).toBe('port');
    expect(container.textContent).not.toContain('**');
  });

  it('never turns raw HTML into elements: it shows as text', async () => {
    await render('look <img src=x onerror="window.__pwned=1"> here\n\n<script>window.__pwned=2</script>\n\n<b onclick="x()">bold?</b>');
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.querySelector('[onerror], [onclick]')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror="window.__pwned=1">');
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('keeps only http, https and mailto links, opened with noopener noreferrer', async () => {
    await render('[safe](https://example.org/a) [mail](mailto:ops@example.org) [bad](javascript:alert(1)) [data](data:text/html,hi) [rel](/api/x) <javascript:alert(2)>');
    const links = [...container.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.org/a', 'mailto:ops@example.org']);
    for (const a of links) expect(a.getAttribute('rel')).toBe('noopener noreferrer');
    // Everything else is text without an href (the autolink's text stays readable, inert).
    expect([...container.querySelectorAll('[href]')]).toHaveLength(2);
    expect(container.querySelectorAll('.md-link-text')).toHaveLength(4);
    expect(container.textContent).toContain('bad');
  });

  it('does not load images (a reply could carry a tracking URL)', async () => {
    await render('![端口图](https://tracker.example/p.png?secret=1)');
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain('端口图');
  });

  it('turns known handles into node buttons, next to Chinese text too, and focuses the node on click', async () => {
    const onFocus = await render('数据库端口是 6543[n1]，缓存见【n2】和 [n1, n2]。');
    const refs = [...container.querySelectorAll<HTMLButtonElement>('[data-testid="node-ref"]')];
    expect(refs.map((b) => b.dataset.handle)).toEqual(['n1', 'n2', 'n1', 'n2']);
    expect(container.textContent).toContain('数据库端口是 6543');
    await act(async () => refs[1].click());
    expect(onFocus).toHaveBeenCalledWith('node-cache');
  });

  it('leaves unknown handles and handles inside code as plain text', async () => {
    await render('未知 [n9] here, `[n1]` inline and\n\n```\nlist[n1]\n```');
    expect(container.querySelectorAll('[data-testid="node-ref"]')).toHaveLength(0);
    expect(container.textContent).toContain('[n9]');
    expect(container.querySelector('p code')?.textContent).toBe('[n1]');
    expect(container.querySelector('pre code')?.textContent).toBe('list[n1]\n');
  });

  it('renders partial Markdown while a reply streams', async () => {
    await render('端口是 **65');
    expect(container.textContent).toContain('端口是');
    await act(async () => root.render(<MarkdownText text={'端口是 **6543** [n1]'} resolve={(h) => KNOWN[h] ?? null} onFocusNode={() => undefined} />));
    expect(container.querySelector('strong')?.textContent).toBe('6543');
    expect(container.querySelector('[data-testid="node-ref"]')).not.toBeNull();
  });
});

describe('splitNodeRefs', () => {
  it('splits groups and keeps the text around them', () => {
    expect(splitNodeRefs('a[n1]b【n2、n3】')).toEqual([{ text: 'a' }, { handle: 'n1' }, { text: 'b' }, { handle: 'n2' }, { handle: 'n3' }]);
    expect(splitNodeRefs('[x1] [n] n4')).toEqual([{ text: '[x1] [n] n4' }]);
  });
});
