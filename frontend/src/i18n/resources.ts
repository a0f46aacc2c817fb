// Bundled catalogues: one JSON file per area (namespace) and language.
import enCommon from './locales/en/common.json';
import enPages from './locales/en/pages.json';
import enCanvas from './locales/en/canvas.json';
import enChat from './locales/en/chat.json';
import enErrors from './locales/en/errors.json';
import enPanels from './locales/en/panels.json';
import enEditing from './locales/en/editing.json';
import enHistory from './locales/en/history.json';
import enSync from './locales/en/sync.json';
import zhCommon from './locales/zh-Hans/common.json';
import zhPages from './locales/zh-Hans/pages.json';
import zhCanvas from './locales/zh-Hans/canvas.json';
import zhChat from './locales/zh-Hans/chat.json';
import zhErrors from './locales/zh-Hans/errors.json';
import zhPanels from './locales/zh-Hans/panels.json';
import zhEditing from './locales/zh-Hans/editing.json';
import zhHistory from './locales/zh-Hans/history.json';
import zhSync from './locales/zh-Hans/sync.json';

export const NAMESPACES = ['common', 'pages', 'canvas', 'chat', 'errors', 'panels', 'editing', 'history', 'sync'] as const;

export const resources = {
  en: { common: enCommon, pages: enPages, canvas: enCanvas, chat: enChat, errors: enErrors, panels: enPanels, editing: enEditing, history: enHistory, sync: enSync },
  'zh-Hans': { common: zhCommon, pages: zhPages, canvas: zhCanvas, chat: zhChat, errors: zhErrors, panels: zhPanels, editing: zhEditing, history: zhHistory, sync: zhSync },
};
