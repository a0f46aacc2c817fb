// Level of detail on a big canvas: below LOD_ZOOM every node React Flow does
// not mount is a box on one <canvas>, and edges are straight lines without
// labels or markers. A pan then redraws one canvas from the transform (no
// React render, no DOM node per card); the scene is rebuilt only when nodes or
// edges change. Clicks on the layer reach the pane; CanvasView turns them into
// the node under the pointer (hitTest).
import { useEffect, useMemo, useRef, type RefObject } from 'react';
import { useStoreApi, type ReactFlowState } from '@xyflow/react';
import { buildScene, drawScene, visibleArea, type Scene, type SceneEdge, type SceneNode } from './lodScene';

interface Props {
  nodes: readonly SceneNode[];
  edges: readonly SceneEdge[];
  /** nodes React Flow mounts itself (selected, dragged, edited, ghosts): not drawn here */
  mounted: ReadonlySet<string>;
  /** the current scene, for hit tests */
  sceneRef: RefObject<Scene | null>;
}

export function LodLayer({ nodes, edges, mounted, sceneRef }: Props) {
  const store = useStoreApi();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const scene = useMemo(() => buildScene(nodes, edges, mounted), [nodes, edges, mounted]);

  useEffect(() => {
    sceneRef.current = scene;
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    let frame = 0;
    let shown: { transform: ReactFlowState['transform']; width: number; height: number } | null = null;
    const draw = () => {
      frame = 0;
      const s = store.getState();
      const dpr = window.devicePixelRatio || 1;
      const w = Math.max(1, Math.round(s.width * dpr));
      const h = Math.max(1, Math.round(s.height * dpr));
      if (canvas.width !== w || canvas.height !== h) {
        canvas.width = w;
        canvas.height = h;
      }
      shown = { transform: s.transform, width: s.width, height: s.height };
      drawScene(ctx, scene, s.transform, visibleArea(s.transform, s), dpr);
      canvas.dataset.drawn = String(scene.count);
    };
    draw();
    // React Flow's store changes on every pan frame: redraw once per animation frame, outside React
    const off = store.subscribe((s) => {
      if (frame || (shown && s.transform === shown.transform && s.width === shown.width && s.height === shown.height)) return;
      frame = requestAnimationFrame(draw);
    });
    return () => {
      off();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [scene, store, sceneRef]);

  useEffect(
    () => () => {
      sceneRef.current = null;
    },
    [sceneRef],
  );

  return <canvas ref={canvasRef} className="lod-layer" data-testid="lod-layer" aria-hidden="true" />;
}
