// The mini map in the canvas's bottom-right corner, small and collapsible: with chat and inspector open
// the canvas is narrow, and a big map would hide the cards it is meant to help find. So on a canvas
// area under 720 px (or a phone) it starts collapsed unless the user left it open.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MiniMap, Panel, useStore } from '@xyflow/react';
import { MapIcon, XIcon } from '../components/Icons';
import { kindMeta } from './kinds';
import type { CardNode } from './NodeCard';
import { isPhoneWidth } from './narrowScreen';
import './CanvasMiniMap.css';

export const MINIMAP_SIZE = { width: 150, height: 100 };
/** on a canvas area narrower than this the map starts collapsed (it would hide too many cards) */
export const MINIMAP_MIN_CANVAS_WIDTH = 720;
export const OPEN_KEY = 'canvasweb.miniMapOpen';

/** The choice the user left, if any; on a phone it starts closed (it would cover a quarter of the canvas). */
function storedOpen(): boolean | null {
  if (isPhoneWidth()) return false;
  try {
    const saved = window.localStorage.getItem(OPEN_KEY);
    if (saved === '1' || saved === '0') return saved === '1';
  } catch {
    /* storage blocked */
  }
  return null;
}

export function CanvasMiniMap() {
  const { t } = useTranslation('editing');
  // React Flow's measured pane width (0 until measured).
  const canvasWidth = useStore((s) => s.width);
  const [choice, setChoice] = useState<boolean | null>(storedOpen);
  // No stored choice: decided once, from the first measured width, and not saved (the user's toggle is).
  if (choice === null && canvasWidth > 0) setChoice(canvasWidth >= MINIMAP_MIN_CANVAS_WIDTH);
  const open = choice === true;
  const toggle = () => {
    setChoice(!open);
    try {
      window.localStorage.setItem(OPEN_KEY, open ? '0' : '1');
    } catch {
      /* storage blocked */
    }
  };
  return (
    <>
      {open && (
        <MiniMap
          pannable
          zoomable
          position="bottom-right"
          style={MINIMAP_SIZE}
          nodeColor={(n) => (n.type === 'ghost' ? '#c4b5fd' : kindMeta((n as CardNode).data?.node?.kind ?? 'note').color)}
          nodeStrokeWidth={0}
          nodeBorderRadius={4}
          maskColor="rgba(241, 245, 249, 0.7)"
          ariaLabel={t('canvasView.miniMap')}
        />
      )}
      {/* sits on the map's top-right corner while open, alone in the corner while closed */}
      <Panel position="bottom-right" className={`minimap-toggle-panel${open ? ' over-map' : ''}`}>
        <button
          className="minimap-toggle"
          onClick={toggle}
          aria-pressed={open}
          aria-label={open ? t('canvasView.hideMiniMap') : t('canvasView.showMiniMap')}
          title={open ? t('canvasView.hideMiniMap') : t('canvasView.showMiniMap')}
          data-testid="minimap-toggle"
        >
          {open ? <XIcon size={11} /> : <MapIcon size={15} />}
        </button>
      </Panel>
    </>
  );
}
