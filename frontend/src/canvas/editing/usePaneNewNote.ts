// A new-note draft opened on the empty pane: by a double-click with a mouse, by a long press with a finger.
// The draft is created only when saved with text (CanvasDrafts).
import { useCallback, useMemo, type MouseEvent as ReactMouseEvent } from 'react';
import { useReactFlow } from '@xyflow/react';
import type { Dispatch, SetStateAction } from 'react';
import type { Selection } from '../context';
import { useCanvasActions } from '../context';
import { coord } from '../flowNodes';
import { useLongPress } from '../touch/useLongPress';
import { useEditSession } from './editSession';

const onPane = (target: EventTarget | null) => !!(target as HTMLElement | null)?.classList?.contains('react-flow__pane');

interface Options {
  setSelection: Dispatch<SetStateAction<Selection>>;
  /** the low-detail layer's own double-click (a drawn block): true when it handled the click */
  onLayerDoubleClick(e: ReactMouseEvent): boolean;
}

export function usePaneNewNote({ setSelection, onLayerDoubleClick }: Options) {
  const { readOnly, startEditing } = useCanvasActions();
  const session = useEditSession();
  const rf = useReactFlow();

  const openAt = useCallback(
    (clientX: number, clientY: number) => {
      const p = rf.screenToFlowPosition({ x: clientX, y: clientY });
      startEditing(null);
      setSelection({ nodes: new Set(), edges: new Set() });
      session.openNoteDraft({ x: coord(p.x - 100), y: coord(p.y - 24), text: '', message: null });
    },
    [rf, startEditing, setSelection, session],
  );

  const onDoubleClick = useCallback(
    (e: ReactMouseEvent) => {
      if (!onPane(e.target) || onLayerDoubleClick(e) || readOnly) return;
      openAt(e.clientX, e.clientY);
    },
    [readOnly, openAt, onLayerDoubleClick],
  );

  const press = useLongPress((p) => openAt(p.clientX, p.clientY), { accept: (target) => !readOnly && onPane(target) });

  return useMemo(
    () => ({
      onDoubleClick,
      onTouchStartCapture: press.onTouchStartCapture,
      onTouchMoveCapture: press.onTouchMoveCapture,
      onTouchEndCapture: press.onTouchEndCapture,
      onTouchCancelCapture: press.onTouchCancelCapture,
      // the browser's menu after a long press would cover the draft
      onContextMenu: (e: ReactMouseEvent) => {
        if (press.fired()) e.preventDefault();
      },
    }),
    [onDoubleClick, press],
  );
}
