import type { ReactNode } from 'react';
import { useResizableWidth } from './useResizableWidth';
import { ChatIcon, ChevronLeftIcon, ChevronRightIcon, ListIcon, XIcon } from '../components/Icons';
import { useTranslation } from 'react-i18next';
import './CanvasLayout.css';

interface Props {
  header: ReactNode;
  banner?: ReactNode;
  canvas: ReactNode;
  inspector: ReactNode;
  inspectorOpen: boolean;
  onToggleInspector(): void;
  /**
   * Slot for the chat panel (added later). When given, it is rendered in a
   * collapsible region on the left of the canvas.
   */
  chat?: ReactNode;
  chatOpen?: boolean;
  onToggleChat?(): void;
}

/** A toggle's icon: a chevron beside a column, another (by default a close mark) on a phone's sheet (CSS picks). */
function ToggleIcons({ wide, phone = <XIcon size={16} /> }: { wide: ReactNode; phone?: ReactNode }) {
  return (
    <>
      <span className="toggle-icon-wide">{wide}</span>
      <span className="toggle-icon-phone">{phone}</span>
    </>
  );
}

/** Canvas page layout: header on top; [chat] | canvas | inspector below. */
export function CanvasLayout({ header, banner, canvas, inspector, inspectorOpen, onToggleInspector, chat, chatOpen, onToggleChat }: Props) {
  const { t } = useTranslation('canvas');
  const chatWidth = useResizableWidth();
  return (
    <div className="canvas-page">
      {header}
      {banner}
      <div className="workspace">
        {chat && (
          <aside
            className={`side-region chat-region${chatOpen ? ' open' : ' collapsed'}`}
            data-testid="chat-region"
            style={chatOpen ? { width: chatWidth.width } : undefined}
          >
            <button
              className="region-toggle"
              onClick={onToggleChat}
              aria-label={chatOpen ? t('layout.hideChat') : t('layout.showChat')}
              title={chatOpen ? t('layout.hideChat') : t('layout.showChat')}
              aria-expanded={chatOpen}
              data-testid="chat-toggle"
            >
              {chatOpen ? <ToggleIcons wide={<ChevronLeftIcon size={14} />} /> : <ChatIcon size={14} />}
            </button>
            {/* kept mounted while collapsed so a streaming reply is not lost */}
            <div className="region-body" hidden={!chatOpen}>
              {chat}
            </div>
            {chatOpen && <div className="region-resizer" aria-label={t('layout.resizeChat')} title={t('layout.resizeChatHint')} data-testid="chat-resizer" {...chatWidth.handleProps} />}
          </aside>
        )}
        <main className="canvas-area">{canvas}</main>
        <div className={`side-region inspector-region${inspectorOpen ? ' open' : ' collapsed'}`}>
          <button
            className="region-toggle"
            onClick={onToggleInspector}
            aria-label={inspectorOpen ? t('layout.hideInspector') : t('layout.showInspector')}
            title={inspectorOpen ? t('layout.hideInspector') : t('layout.showInspector')}
            aria-expanded={inspectorOpen}
            data-testid="inspector-toggle"
          >
            {inspectorOpen ? <ToggleIcons wide={<ChevronRightIcon size={14} />} /> : <ToggleIcons wide={<ChevronLeftIcon size={14} />} phone={<ListIcon size={16} />} />}
          </button>
          {inspectorOpen && <div className="region-body">{inspector}</div>}
        </div>
      </div>
    </div>
  );
}
