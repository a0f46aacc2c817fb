// An assistant reply as safe Markdown: GFM (bold, code, lists, tables) through react-markdown, never
// raw HTML (shown as text; no rehype-raw; rehype-sanitize drops anything outside its schema), links only to
// http/https/mailto and opened with rel="noopener noreferrer", images not loaded (a reply could carry
// a tracking or exfiltration URL), and `[n3]` handles drawn as buttons that focus the node.
import { createContext, memo, useContext, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { remarkHtmlAsText } from './htmlAsText';
import { handleOfHref, remarkNodeRefs } from './nodeRefs';
import './markdown.css';

const SAFE_LINK = /^(https?:|mailto:)/i;

const SCHEMA = {
  ...defaultSchema,
  protocols: { ...defaultSchema.protocols, href: ['http', 'https', 'mailto'] },
};

// html-as-text first, so the handle pass sees the merged text.
const REMARK = [remarkGfm, remarkHtmlAsText, remarkNodeRefs];
const REHYPE = [[rehypeSanitize, SCHEMA]] as never;

export interface NodeRefProps {
  /** the node id a handle stands for, when this user can see it on the canvas; null: plain text */
  resolve(handle: string): string | null;
  onFocusNode(nodeId: string): void;
}

function NodeRefButton({ handle, nodeId, onFocusNode }: { handle: string; nodeId: string; onFocusNode(id: string): void }) {
  const { t } = useTranslation('chat');
  return (
    <button type="button" className="md-node-ref" onClick={() => onFocusNode(nodeId)} title={t('nodeRefTitle')} data-testid="node-ref" data-handle={handle} data-node-id={nodeId}>
      {handle}
    </button>
  );
}

/** An image in a reply is never loaded: its alt text (or a note) stands in for it. */
function ImageAlt({ alt }: { alt?: string }) {
  const { t } = useTranslation('chat');
  return <span className="md-image-alt">[{alt || t('imageNotShown')}]</span>;
}

const NodeRefs = createContext<NodeRefProps>({ resolve: () => null, onFocusNode: () => undefined });

function NodeRef({ handle }: { handle: string }) {
  const { resolve, onFocusNode } = useContext(NodeRefs);
  const nodeId = resolve(handle);
  return nodeId ? <NodeRefButton handle={handle} nodeId={nodeId} onFocusNode={onFocusNode} /> : <span className="md-node-ref-unknown">[{handle}]</span>;
}

// One constant set of renderers (new ones per render would remount every link while a reply streams).
const COMPONENTS: Components = {
  a({ href, children }) {
    const handle = handleOfHref(href);
    if (handle) return <NodeRef handle={handle} />;
    if (href && SAFE_LINK.test(href)) {
      return (
        <a href={href} target="_blank" rel="noopener noreferrer">
          {children}
        </a>
      );
    }
    return <span className="md-link-text">{children as ReactNode}</span>;
  },
  img({ alt }) {
    return <ImageAlt alt={alt} />;
  },
  table({ children }) {
    return (
      <div className="md-table-wrap">
        <table>{children}</table>
      </div>
    );
  },
};

/** Renders `text` (complete or still streaming: partial Markdown renders as far as it parses). */
export const MarkdownText = memo(function MarkdownText({ text, resolve, onFocusNode }: { text: string } & NodeRefProps) {
  return (
    <div className="md-text" dir="auto">
      <NodeRefs.Provider value={{ resolve, onFocusNode }}>
        <ReactMarkdown remarkPlugins={REMARK} rehypePlugins={REHYPE} components={COMPONENTS}>
          {text}
        </ReactMarkdown>
      </NodeRefs.Provider>
    </div>
  );
});
