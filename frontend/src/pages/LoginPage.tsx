import { useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage } from '../api/client';
import { setCurrentUser } from '../lib/auth';
import { navigate } from '../lib/router';
import { LogoMark } from '../components/Icons';
import { useTranslation } from 'react-i18next';

export function LoginPage({ next }: { next: string | null }) {
  const { t } = useTranslation('pages');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim() || !password) {
      setError(t('login.missing'));
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
        setError(err.code === 'RATE_LIMITED' ? errorMessage(err) : t('login.incorrect'));
      } else if (err instanceof ApiError && err.status === 429) {
        setError(errorMessage(err) || t('login.tooMany'));
      } else {
        setError(err instanceof Error ? errorMessage(err) : t('login.failed'));
      }
      setBusy(false);
    }
  };

  return (
    <div className="login-page">
      <form className="login-card" onSubmit={submit} noValidate data-testid="login-form">
        <div className="login-brand">
          <LogoMark size={36} />
          <h1>{t('login.title')}</h1>
          <p className="muted">{t('login.tagline')}</p>
        </div>
        <label className="field">
          <span>{t('login.username')}</span>
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
          <span>{t('login.password')}</span>
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
          {busy ? t('login.signingIn') : t('login.signIn')}
        </button>
      </form>
    </div>
  );
}
