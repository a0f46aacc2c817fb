import { useStore, ViewportPortal } from '@xyflow/react';
import type { SyncEngine } from '../sync/engine';
import { textOn } from '../lib/format';
import { usePeers } from './context';

/** Other people's pointers, drawn in canvas coordinates at a constant screen size (the only reader of cursor frames). */
export function RemoteCursors({ engine }: { engine: SyncEngine }) {
  const peers = usePeers(engine);
  const zoom = useStore((s) => s.transform[2]);
  return (
    <ViewportPortal>
      {peers
        .filter((p) => p.cursor)
        .map((p) => (
          <div
            key={p.connectionId}
            className="remote-cursor"
            data-testid={`remote-cursor-${p.connectionId}`}
            style={{ transform: `translate(${p.cursor!.x}px, ${p.cursor!.y}px) scale(${1 / zoom})`, color: p.color }}
          >
            <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">
              <path d="M2 1.5 15.5 8 9 9.5 6.2 16z" fill="currentColor" stroke="#fff" strokeWidth="1.4" strokeLinejoin="round" />
            </svg>
            <span className="remote-cursor-name" style={{ background: p.color, color: textOn(p.color) }}>
              {p.user.username}
            </span>
          </div>
        ))}
    </ViewportPortal>
  );
}
