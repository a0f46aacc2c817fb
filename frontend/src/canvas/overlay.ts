// Canvas decorations that do not belong to the document: the context preview
// highlights, the "written by the agent" filter, ghost proposals, and the
// current viewport (for the chat). One store per open canvas; panels write it,
// CanvasView reads it.
import { useSyncExternalStore } from 'react';
import type { ContextReport, PresenceViewport, Proposal } from '../api/types';

export interface PreviewHighlight {
  /** included node id → rank (1 = most important) */
  included: ReadonlyMap<string, { rank: number; reason: string; placeholder: boolean; handle: string }>;
  /** excluded node id → reason */
  excluded: ReadonlyMap<string, { reason: string; detail: string }>;
}

export interface OverlayState {
  preview: PreviewHighlight | null;
  agentOnly: boolean;
  /** pending proposals drawn as ghosts */
  proposals: readonly Proposal[];
  /** proposal to reveal in the proposals panel (clicked ghost) */
  focusedProposal: { id: number; seq: number } | null;
  /** conversation the chat panel should open (history links) */
  conversationRequest: { id: number; seq: number } | null;
  /** right-hand panel tab request */
  panelRequest: { tab: string; seq: number } | null;
}

export function highlightFromReport(report: ContextReport | null): PreviewHighlight | null {
  if (!report) return null;
  const included = new Map<string, { rank: number; reason: string; placeholder: boolean; handle: string }>();
  for (const n of report.included ?? []) included.set(n.node_id, { rank: n.rank, reason: n.reason, placeholder: !!n.placeholder, handle: n.handle });
  const excluded = new Map<string, { reason: string; detail: string }>();
  for (const n of report.excluded ?? []) if (!included.has(n.node_id)) excluded.set(n.node_id, { reason: n.reason, detail: n.detail ?? '' });
  return { included, excluded };
}

export class OverlayStore {
  private state: OverlayState = {
    preview: null,
    agentOnly: false,
    proposals: [],
    focusedProposal: null,
    conversationRequest: null,
    panelRequest: null,
  };
  private listeners = new Set<() => void>();
  private viewport: PresenceViewport | null = null;
  private viewportListeners = new Set<(v: PresenceViewport) => void>();
  private seq = 0;

  subscribe = (l: () => void) => {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  };
  getSnapshot = () => this.state;

  private set(patch: Partial<OverlayState>) {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }

  setPreview(report: ContextReport | null) {
    this.set({ preview: highlightFromReport(report) });
  }
  setAgentOnly(on: boolean) {
    if (on !== this.state.agentOnly) this.set({ agentOnly: on });
  }
  setProposals(list: readonly Proposal[]) {
    this.set({ proposals: list });
  }
  focusProposal(id: number) {
    this.set({ focusedProposal: { id, seq: ++this.seq }, panelRequest: { tab: 'proposals', seq: ++this.seq } });
  }
  openConversation(id: number) {
    this.set({ conversationRequest: { id, seq: ++this.seq } });
  }
  openPanel(tab: string) {
    this.set({ panelRequest: { tab, seq: ++this.seq } });
  }

  // The viewport changes on every pan frame: listeners, not React state.
  setViewport(v: PresenceViewport) {
    this.viewport = v;
    for (const l of [...this.viewportListeners]) l(v);
  }
  getViewport(): PresenceViewport | null {
    return this.viewport;
  }
  onViewport(l: (v: PresenceViewport) => void): () => void {
    this.viewportListeners.add(l);
    return () => {
      this.viewportListeners.delete(l);
    };
  }
}

export function useOverlay(store: OverlayStore): OverlayState {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}
