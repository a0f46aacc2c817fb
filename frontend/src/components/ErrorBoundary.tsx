import { Component, type ErrorInfo, type ReactNode } from 'react';
import i18n from 'i18next';

interface Props {
  children: ReactNode;
  /** shown instead of the default full-page card */
  fallback?: (error: Error, reset: () => void) => ReactNode;
  label?: string;
}
interface State {
  error: Error | null;
}

export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`[canvasweb] ${this.props.label ?? 'app'} crashed`, error, info.componentStack);
  }

  reset = () => this.setState({ error: null });

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    if (this.props.fallback) return this.props.fallback(error, this.reset);
    return (
      <div className="crash" role="alert" data-testid="error-boundary">
        <div className="crash-card">
          <h1>{i18n.t('common:crash.title')}</h1>
          <p>{i18n.t('common:crash.message')}</p>
          <pre className="crash-detail">{error.message}</pre>
          <div className="row gap">
            <button className="btn btn-primary" onClick={() => window.location.reload()}>
              {i18n.t('common:crash.reload')}
            </button>
            <button className="btn" onClick={this.reset}>
              {i18n.t('common:crash.tryAgain')}
            </button>
          </div>
        </div>
      </div>
    );
  }
}
