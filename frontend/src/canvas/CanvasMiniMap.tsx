// The mini map in the canvas's bottom-right corner, small and collapsible: with chat and inspector open
// the canvas is narrow, and a big map would hide the cards it is meant to help find.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MiniMap, Panel } from '@xyflow/react';
import { MapIcon, XIcon } from '../components/Icons';
import { kindMeta } from './kinds';
import type { CardNode } from './NodeCard';
import { isPhoneWidth } from './narrowScreen';
import './CanvasMiniMap.css';

export const MINIMAP_SIZE = { width: 150, height: 100 };
const OPEN_KEY = 'canvasweb.miniMapOpen';

/** Open as last left; on a phone it starts closed (it would cover a quarter of the canvas). */
function initialOpen(): boolean {
  try {
    const saved = window.localStorage.getItem(OPEN_KEY);
    if (saved === '1' || saved === '0') return saved === '1' && !isPhoneWidth();
  } catch {
    /* storage blocked */
  }
  return !isPhoneWidth();
}

export function CanvasMiniMap() {
  const { t } = useTranslation('editing');
  const [open, setOpen] = useState(initialOpen);
  const toggle = () => {
    setOpen(!open);
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
