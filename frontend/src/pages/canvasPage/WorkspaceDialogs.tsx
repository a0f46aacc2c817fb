import type { AgentPolicyValue, CanvasSummary, UserRef } from '../../api/types';
import { CanvasSettingsDialog } from '../../agent/CanvasSettingsDialog';
import { MembersDialog } from '../../canvas/MembersDialog';
import { AuditDialog } from '../../history/AuditDialog';
import type { Doc } from '../../sync/apply';

export type OpenDialog = { settings: boolean; members: boolean; audit: boolean };

interface Props {
  canvasId: string;
  name: string;
  policy: AgentPolicyValue | null;
  meta: CanvasSummary | null;
  onMeta(c: CanvasSummary): void;
  me: UserRef | null;
  isOwner: boolean;
  doc: Doc;
  selectedNodeIds: string[];
  open: OpenDialog;
  onClose(which: keyof OpenDialog): void;
}

/** The canvas page's dialogs: agent settings and audit log (owner), members (everyone). */
export function WorkspaceDialogs({ canvasId, name, policy, meta, onMeta, me, isOwner, doc, selectedNodeIds, open, onClose }: Props) {
  return (
    <>
      {open.settings && (
        <CanvasSettingsDialog
          canvasId={canvasId}
          name={name}
          policy={policy}
          onSaved={(c) => onMeta({ ...(meta ?? c), ...c })}
          onClose={() => onClose('settings')}
        />
      )}
      {open.members && <MembersDialog canvasId={canvasId} me={me} isOwner={isOwner} onClose={() => onClose('members')} />}
      {open.audit && isOwner && (
        <AuditDialog
          canvasId={canvasId}
          selectedNode={selectedNodeIds.length === 1 && doc.nodes.get(selectedNodeIds[0]) ? { id: selectedNodeIds[0], content: doc.nodes.get(selectedNodeIds[0])!.content } : null}
          onClose={() => onClose('audit')}
        />
      )}
    </>
  );
}
