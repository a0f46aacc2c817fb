// Whether the chat panel is open: remembered per browser, open by default on wide windows.
import { isPhoneWidth } from '../../canvas/narrowScreen';

const CHAT_OPEN_KEY = 'canvasweb.chatOpen';
/** from this window width the chat (the core feature) starts open */
export const CHAT_OPEN_MIN_WIDTH = 1280;

/** The chat starts open when there is room for it next to the canvas and the inspector (or as last left). */
export function initialChatOpen(): boolean {
  // On a phone the chat is a sheet over the whole canvas: it never starts open, whatever a wide window saved.
  if (isPhoneWidth()) return false;
  try {
    const saved = window.localStorage.getItem(CHAT_OPEN_KEY);
    if (saved === '1' || saved === '0') return saved === '1';
  } catch {
    /* storage blocked */
  }
  return typeof window === 'undefined' || window.innerWidth >= CHAT_OPEN_MIN_WIDTH;
}

export function rememberChatOpen(open: boolean) {
  try {
    window.localStorage.setItem(CHAT_OPEN_KEY, open ? '1' : '0');
  } catch {
    /* storage blocked */
  }
}
