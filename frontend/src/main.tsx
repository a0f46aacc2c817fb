import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';
import './styles.css';
import './i18n';
import { App } from './App';
import { ErrorBoundary } from './components/ErrorBoundary';
import { installTestHooks } from './lib/testHooks';

// Only pages served with CANVASWEB_TEST_HOOKS (browser tests, the browser benchmark) expose window.__canvasweb.
if (document.documentElement.dataset.testHooks === '1') installTestHooks();

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
