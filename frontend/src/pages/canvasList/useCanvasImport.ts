import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { importCanvasFile, type ImportFailure } from '../../history/jsonCanvas';
import { navigate } from '../../lib/router';
import { toast } from '../../lib/toast';

export type ImportError = ImportFailure & { file: string };

/** Importing a JSON Canvas file: the hidden file input's ref, the busy flag, and the failure to show. */
export function useCanvasImport() {
  const { t } = useTranslation('pages');
  const [importing, setImporting] = useState(false);
  const [importError, setImportError] = useState<ImportError | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  const onImportFile = async (file: File | undefined) => {
    if (!file) return;
    setImporting(true);
    try {
      const res = await importCanvasFile(file);
      const extras = [
        t('list.importCounts', { nodes: t('list.nodeCount', { count: res.nodes }), edges: t('list.edgeCount', { count: res.edges }) }),
        ...res.notes.slice(0, 2),
        ...(res.unknown_keys.length ? [t('list.ignoredKeys', { keys: res.unknown_keys.map((u) => u.keys.join(', ')).join('; ') })] : []),
      ];
      toast.success(extras.join(' · '), t('list.imported', { name: res.canvas.name }));
      navigate(`/canvases/${res.canvas.id}/`);
    } catch (err) {
      const f = err as ImportFailure;
      setImportError({ message: f?.message ?? String(err), problems: f?.problems ?? [], file: file.name });
    } finally {
      setImporting(false);
      if (fileRef.current) fileRef.current.value = '';
    }
  };

  return { fileRef, importing, importError, clearImportError: () => setImportError(null), onImportFile };
}
