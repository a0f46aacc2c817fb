// The live context preview under the chat: the token bar and what would be sent / left out.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ContextReport } from '../api/types';
import type { Doc } from '../sync/apply';
import { ExcludedList, IncludedList } from './ContextLists';
import { TokenBar } from './TokenBar';

export function ContextPreviewBox({ preview, error: previewError, online, doc, onFocus: focusFromList }: {
  preview: ContextReport | null;
  error: string | null;
  online: boolean;
  doc: Doc;
  onFocus(id: string): void;
}) {
  const { t } = useTranslation('panels');
  const [previewTab, setPreviewTab] = useState<'included' | 'excluded'>('included');
  return (
    <div className="context-preview" data-testid="context-preview">
      {previewError && <div className="field-hint error">{previewError}</div>}
      {!preview && !previewError && <div className="muted small">{online ? t('contextPreview.computing') : t('contextPreview.waiting')}</div>}
      {preview && (
        <>
          <TokenBar layerTokens={preview.layer_tokens} budget={preview.budget} total={preview.total_tokens} testId="preview-token-bar" />
          <div className="preview-tabs" role="tablist">
            <button
              role="tab"
              aria-selected={previewTab === 'included'}
              className={`preview-tab${previewTab === 'included' ? ' active' : ''}`}
              onClick={() => setPreviewTab('included')}
              data-testid="preview-tab-included"
            >
              {t('contextPreview.sent')} <span className="count-pill" data-testid="preview-included-count">{preview.included.length}</span>
            </button>
            <button
              role="tab"
              aria-selected={previewTab === 'excluded'}
              className={`preview-tab${previewTab === 'excluded' ? ' active' : ''}`}
              onClick={() => setPreviewTab('excluded')}
              data-testid="preview-tab-excluded"
            >
              {t('contextPreview.leftOut')}{' '}
              <span className="count-pill" data-testid="preview-excluded-count">
                {Object.values(preview.excluded_counts ?? {}).reduce((a, b) => a + b, 0)}
              </span>
            </button>
          </div>
          <div className="preview-body">
            {previewTab === 'included' ? (
              <IncludedList items={preview.included} doc={doc} onFocus={focusFromList} testPrefix="preview" />
            ) : (
              <ExcludedList items={preview.excluded} counts={preview.excluded_counts ?? {}} doc={doc} onFocus={focusFromList} testPrefix="preview" />
            )}
          </div>
        </>
      )}
    </div>
  );
}
