// The canvas route: loads the canvas summary and its sync engine, then opens the workspace (canvasPage/).

import { useEffect, useState, type ReactNode } from 'react';
import { ReactFlowProvider } from '@xyflow/react';
import { api, ApiError } from '../api/client';
import type { CanvasSummary } from '../api/types';
import { Spinner } from '../components/Spinner';
import { setCurrentUser } from '../lib/auth';
import { toast } from '../lib/toast';
import { useCanvasEngine } from '../canvas/useCanvasEngine';
import { NotFoundPage } from './NotFoundPage';
import { Workspace } from './canvasPage/Workspace';
import { useTranslation } from 'react-i18next';

export { CHAT_OPEN_MIN_WIDTH } from './canvasPage/chatOpen';

interface Props {
  canvasId: string;
  /** chat panel slot (see CanvasLayout) */
  chat?: ReactNode;
}

export function CanvasPage({ canvasId, chat }: Props) {
  const { t } = useTranslation('canvas');
  const [meta, setMeta] = useState<CanvasSummary | null>(null);
  const [missing, setMissing] = useState(false);

  useEffect(() => {
    let alive = true;
    api
      .getCanvas(canvasId)
      .then((c) => alive && setMeta(c))
      .catch((err) => {
        if (!alive) return;
        if (err instanceof ApiError && err.isAuth) setCurrentUser(null);
        else if (err instanceof ApiError && (err.status === 404 || err.status === 403)) setMissing(true);
        else toast.error(err instanceof Error ? err.message : String(err), t('page.loadFailed'));
      });
    return () => {
      alive = false;
    };
  }, [canvasId, t]);

  const engine = useCanvasEngine(missing ? null : canvasId);

  if (missing) return <NotFoundPage message={t('page.missing')} />;
  if (!engine) return <Spinner label={t('page.opening')} />;
  return (
    <ReactFlowProvider>
      <Workspace engine={engine} canvasId={canvasId} meta={meta} onMeta={setMeta} chat={chat} />
    </ReactFlowProvider>
  );
}
