import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';
import './styles.css';
import './i18n';
import { App } from './App';
import { ErrorBoundary } from './components/ErrorBoundary';
import { installTestHooks } from './lib/testHooks';
import { ensureCurrentUser } from './lib/auth';

// Only pages served with CANVASWEB_TEST_HOOKS (browser tests, the browser benchmark) expose window.__canvasweb.
if (document.documentElement.dataset.testHooks === '1') installTestHooks();

// Ask who is signed in now, not after the first render (App waits for the same request).
void ensureCurrentUser();

const el = document.getElementById('root');
if (el) {
  createRoot(el).render(
    <StrictMode>
      <ErrorBoundary label="app">
        <App />
      </ErrorBoundary>
    </StrictMode>,
  );
}
