import { Component, type ErrorInfo, type ReactNode } from 'react';

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
          <h1>Something went wrong</h1>
          <p>The page hit an unexpected error. Your confirmed edits are saved on the server.</p>
          <pre className="crash-detail">{error.message}</pre>
          <div className="row gap">
            <button className="btn btn-primary" onClick={() => window.location.reload()}>
              Reload
            </button>
            <button className="btn" onClick={this.reset}>
              Try again
            </button>
          </div>
        </div>
      </div>
    );
  }
}
