import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { setCurrentUser } from '../lib/auth';
import { navigate } from '../lib/router';
import { LogoMark } from '../components/Icons';

export function LoginPage({ next }: { next: string | null }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim() || !password) {
      setError('Enter your username and password.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const user = await api.login(username.trim(), password);
      setCurrentUser(user);
      navigate(next ?? '/', { replace: true });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 400 || err.status === 401 || err.status === 403) && !/csrf/i.test(err.message)) {
        setError(err.code === 'RATE_LIMITED' ? err.message : 'Incorrect username or password.');
      } else if (err instanceof ApiError && err.status === 429) {
        setError(err.message || 'Too many attempts. Wait a moment and try again.');
      } else {
        setError(err instanceof Error ? err.message : 'Sign-in failed.');
      }
      setBusy(false);
    }
  };

  return (
    <div className="login-page">
      <form className="login-card" onSubmit={submit} noValidate data-testid="login-form">
        <div className="login-brand">
          <LogoMark size={36} />
          <h1>Sign in to Canvasweb</h1>
          <p className="muted">Shared working memory for your team and your models.</p>
        </div>
        <label className="field">
          <span>Username</span>
          <input
            name="username"
            autoComplete="username"
            autoFocus
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            data-testid="login-username"
          />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid="login-password"
          />
        </label>
        {error && (
          <div className="form-error" role="alert" data-testid="login-error">
            {error}
          </div>
        )}
        <button className="btn btn-primary btn-block" type="submit" disabled={busy} data-testid="login-submit">
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
