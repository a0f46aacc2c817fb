import { useCallback, useEffect, useMemo, useReducer, useRef } from 'react';
import { api, ApiError, errorMessage } from '../api/client';
import type { Proposal } from '../api/types';
import type { OverlayStore } from '../canvas/overlay';
import type { SyncEngine } from '../sync/engine';
import { INITIAL_PROPOSALS, pendingProposals, proposalsReducer, type ProposalsState } from './proposals';

export interface ProposalsController {
  state: ProposalsState;
  pending: Proposal[];
  reload(): Promise<void>;
  /** returns the error when it failed (CONFLICT with field "force" = stale) */
  approve(id: number, force?: boolean): Promise<ApiError | null>;
  reject(id: number): Promise<ApiError | null>;
}

/** The proposal queue of one canvas: REST list + live `agent.proposal` frames; ghosts go to the overlay. */
export function useProposals(engine: SyncEngine, canvasId: string, overlay: OverlayStore, status: string): ProposalsController {
  const [state, dispatch] = useReducer(proposalsReducer, INITIAL_PROPOSALS);
  const alive = useRef(true);

  const reload = useCallback(async () => {
    try {
      const list = await api.proposals(canvasId);
      if (alive.current) dispatch({ type: 'loaded', proposals: Array.isArray(list) ? list : [] });
    } catch (err) {
      if (alive.current) dispatch({ type: 'loadFailed', message: errorMessage(err) });
    }
  }, [canvasId]);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  useEffect(
    () =>
      engine.onFrame((f) => {
        if (f.type === 'agent.proposal' && f.proposal) dispatch({ type: 'frame', action: String(f.action ?? ''), proposal: f.proposal as Proposal });
      }),
    [engine],
  );

  // Load at start and again after every reconnect (frames may have been missed).
  useEffect(() => {
    if (status === 'online') void reload();
  }, [status, reload]);

  const pending = useMemo(() => pendingProposals(state), [state]);
  useEffect(() => overlay.setProposals(pending), [overlay, pending]);
  useEffect(() => () => overlay.setProposals([]), [overlay]);

  const approve = useCallback(async (id: number, force = false) => {
    try {
      const res = await api.approveProposal(id, force);
      dispatch({ type: 'decided', proposal: res.proposal });
      return null;
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(0, { message: errorMessage(err) });
      // Failed at apply time or already decided: refresh from the server.
      if (e.status !== 409 || e.field !== 'force') void reload();
      return e;
    }
  }, [reload]);

  const reject = useCallback(async (id: number) => {
    try {
      const res = await api.rejectProposal(id);
      dispatch({ type: 'decided', proposal: res.proposal });
      return null;
    } catch (err) {
      void reload();
      return err instanceof ApiError ? err : new ApiError(0, { message: errorMessage(err) });
    }
  }, [reload]);

  return { state, pending, reload, approve, reject };
}
