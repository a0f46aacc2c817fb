import i18n from 'i18next';
import { afterEach, describe, expect, it } from 'vitest';
import { socketErrorText } from '../i18n/errors';
import { statusLabel, toolLabel } from '../agent/proposals';

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('WebSocket reject and error texts', () => {
  it('maps a documented code to the UI language and keeps a detail in that language', async () => {
    expect(socketErrorText('reject', 'FORBIDDEN', 'viewers may not edit')).toBe('You do not have permission to do that. (viewers may not edit)');
    await i18n.changeLanguage('zh-Hans');
    expect(socketErrorText('reject', 'FORBIDDEN', 'viewers may not edit')).toBe('你没有权限执行此操作。');
    expect(socketErrorText('reject', 'INVALID', '内容超过 10000 个字符')).toBe('内容超过 10000 个字符');
    expect(socketErrorText('reject', 'INVALID', 'content is too long')).toBe('这次修改无效。');
    expect(socketErrorText('reject', 'NOT_FOUND', '节点不存在')).toBe('该项目已不存在——可能已被他人删除。（节点不存在）');
    expect(socketErrorText('error', 'RATE_LIMITED', undefined)).toBe('消息发送过于频繁，请稍候。');
  });

  it('falls back to the server text for an unknown code, and to a generic line without one', async () => {
    await i18n.changeLanguage('zh-Hans');
    expect(socketErrorText('reject', 'SOMETHING_NEW', '服务器说明')).toBe('服务器说明');
    expect(socketErrorText('error', undefined, undefined)).toBe('服务器无法处理一条消息。');
    await i18n.changeLanguage('en');
    expect(socketErrorText('reject', 'SOMETHING_NEW', 'a new reason')).toBe('a new reason');
  });
});

describe('proposal chips', () => {
  it('translate the raw status and tool, keeping unknown values', async () => {
    expect(statusLabel('pending')).toBe('pending');
    await i18n.changeLanguage('zh-Hans');
    expect(statusLabel('pending')).toBe('待审批');
    expect(statusLabel('failed')).toBe('失败');
    expect(toolLabel('add_node')).toBe('添加节点');
    expect(statusLabel('archived_later')).toBe('archived_later');
  });
});
