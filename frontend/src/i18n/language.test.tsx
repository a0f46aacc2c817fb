import { act, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { useTranslation } from 'react-i18next';
import i18n from 'i18next';
import { detectLanguage, normalizeLanguage, pickLanguage, setLanguage, STORAGE_KEY } from './index';
import { LanguageSwitch } from '../components/LanguageSwitch';
import { localizedApiMessage } from './errors';

afterEach(async () => {
  localStorage.removeItem(STORAGE_KEY);
  await i18n.changeLanguage('en');
});

describe('language detection', () => {
  it.each(['zh', 'zh-CN', 'zh-Hans', 'zh-SG', 'zh-Hans-CN', 'zh_CN'])('%s → zh-Hans', (tag) => {
    expect(normalizeLanguage(tag)).toBe('zh-Hans');
  });
  it.each(['en-US', 'en-GB', 'en'])('%s → en', (tag) => expect(normalizeLanguage(tag)).toBe('en'));
  it('other languages fall back to English, the first supported preference wins', () => {
    expect(pickLanguage(['fr-FR', 'de'])).toBe('en');
    expect(pickLanguage(['fr-FR', 'zh-CN', 'en'])).toBe('zh-Hans');
    expect(pickLanguage(['zh-TW'])).toBe('en');
    expect(pickLanguage([])).toBe('en');
  });
  it('a stored choice beats the browser locale', () => {
    localStorage.setItem(STORAGE_KEY, 'zh-Hans');
    expect(detectLanguage()).toBe('zh-Hans');
    localStorage.setItem(STORAGE_KEY, 'en');
    expect(detectLanguage()).toBe('en');
  });
});

function Probe({ onRender }: { onRender(text: string): void }) {
  const { t } = useTranslation('canvas');
  const text = t('inspector.showHistory');
  useEffect(() => {
    onRender(text);
  });
  return (
    <>
      <span data-testid="probe">{text}</span>
      <LanguageSwitch />
    </>
  );
}

describe('language switch', () => {
  it('switches the UI, remembers the choice and sets <html lang>', async () => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    const root = createRoot(host);
    const seen: string[] = [];
    await act(async () => root.render(<Probe onRender={(s) => seen.push(s)} />));
    expect(host.querySelector('[data-testid="probe"]')?.textContent).toBe('Show history');
    const select = host.querySelector('select') as HTMLSelectElement;
    await act(async () => {
      select.value = 'zh-Hans';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(host.querySelector('[data-testid="probe"]')?.textContent).toBe('查看历史');
    expect(localStorage.getItem(STORAGE_KEY)).toBe('zh-Hans');
    expect(document.documentElement.lang).toBe('zh-Hans');
    await act(async () => setLanguage('en'));
    expect(host.querySelector('[data-testid="probe"]')?.textContent).toBe('Show history');
    expect(document.documentElement.lang).toBe('en');
    act(() => root.unmount());
    host.remove();
  });

  it('plurals and interpolation follow the language', async () => {
    expect(i18n.t('pages:list.nodeCount', { count: 1 })).toBe('1 node');
    expect(i18n.t('pages:list.nodeCount', { count: 3 })).toBe('3 nodes');
    await setLanguage('zh-Hans');
    expect(i18n.t('pages:list.nodeCount', { count: 3 })).toBe('3 个节点');
    expect(i18n.t('pages:list.deleted', { name: '项目计划' })).toBe('已删除「项目计划」');
  });

  it('error codes map to translated messages; a server-translated message is kept', async () => {
    expect(localizedApiMessage('FORBIDDEN', 'a viewer may not perform node.update')).toBe('a viewer may not perform node.update');
    await setLanguage('zh-Hans');
    expect(localizedApiMessage('NETWORK', 'Cannot reach the server.')).toBe('无法连接到服务器，请检查网络。');
    expect(localizedApiMessage('FORBIDDEN', 'a viewer may not perform node.update')).toBe('你没有执行此操作的权限。（a viewer may not perform node.update）');
    expect(localizedApiMessage('NOT_FOUND', '没有这个画布')).toBe('没有这个画布');
  });
});
