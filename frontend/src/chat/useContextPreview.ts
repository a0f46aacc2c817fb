// The context preview of the chat panel: what the next question would send, kept up to date as the
// user pans, types and the canvas changes (PreviewScheduler debounces the context.preview frames).
import i18n from 'i18next';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ContextReport } from '../api/types';
import type { OverlayStore } from '../canvas/overlay';
import type { SyncEngine } from '../sync/engine';
import { PreviewScheduler } from './preview';

export function useContextPreview({ engine, overlayStore, draft, activeId, revision, online }: {
  engine: SyncEngine;
  overlayStore: OverlayStore;
  draft: string;
  activeId: number | null;
  revision: number | null;
  online: boolean;
}) {
  const [previewOn, setPreviewOn] = useState(false);
  const [preview, setPreview] = useState<ContextReport | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const schedulerRef = useRef<PreviewScheduler | null>(null);
  if (!schedulerRef.current) schedulerRef.current = new PreviewScheduler({ send: (f) => engine.send(f) });
  const scheduler = schedulerRef.current;

  useEffect(
    () =>
      engine.onFrame((f) => {
        if (f.type === 'context.preview') {
          const report = scheduler.accept(f);
          if (report) {
            setPreview(report);
            setPreviewError(null);
            overlayStore.setPreview(report);
          }
        } else if (f.type === 'error' && scheduler.acceptError(f)) setPreviewError((f as { error?: { message?: string } }).error?.message ?? i18n.t('chat:previewFailed'));
      }),
    [engine, scheduler, overlayStore],
  );

  // After a reconnect, ask again for what the server would send now.
  const wasOnline = useRef(online);
  useEffect(() => {
    if (!wasOnline.current && online) {
      scheduler.invalidate();
      if (scheduler.isEnabled) scheduler.flush();
    }
    wasOnline.current = online;
  }, [online, scheduler]);

  const previewInput = useCallback(
    () => ({ viewport: overlayStore.getViewport(), text: draft.trim(), conversationId: activeId }),
    [overlayStore, draft, activeId],
  );

  useEffect(() => {
    if (previewOn) scheduler.update(previewInput());
  }, [previewOn, previewInput, scheduler]);

  useEffect(() => {
    if (!previewOn) return;
    return overlayStore.onViewport((viewport) => scheduler.update({ ...previewInput(), viewport }));
  }, [previewOn, overlayStore, previewInput, scheduler]);

  // Canvas edits change what would be sent.
  useEffect(() => {
    if (!previewOn) return;
    scheduler.invalidate();
    scheduler.update(previewInput());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [revision]);

  const togglePreview = (on: boolean) => {
    setPreviewOn(on);
    if (on) {
      scheduler.enable(previewInput());
    } else {
      scheduler.disable();
      setPreview(null);
      setPreviewError(null);
      overlayStore.setPreview(null);
    }
  };

  useEffect(
    () => () => {
      scheduler.disable();
      overlayStore.setPreview(null);
    },
    [scheduler, overlayStore],
  );

  return { previewOn, preview, previewError, togglePreview };
}
