import { type FormEvent, type ReactNode, useCallback, useEffect, useState } from 'react';
import { useI18n } from '../i18n/index.ts';
import { forgetToken, requestDemoSession, storedToken, storeToken } from './session-token.ts';

type SessionState =
  | { kind: 'signing_in' }
  | { kind: 'signed_in'; token: string }
  | { kind: 'needs_token' }
  | { kind: 'failed'; message: string };

/**
 * Renders its children once the page holds a token. The token comes from localStorage (set by an
 * earlier visit or by a deployment's own login) or, out of the box, from the server's demo login.
 * `signOut` (called on a 401) forgets it and signs in again.
 */
export function SessionGate({
  children,
}: {
  children: (session: { token: string; signOut: () => void }) => ReactNode;
}) {
  const { t } = useI18n();
  const [session, setSession] = useState<SessionState>(() => {
    const token = storedToken();
    return token ? { kind: 'signed_in', token } : { kind: 'signing_in' };
  });

  const signIn = useCallback(async () => {
    setSession({ kind: 'signing_in' });
    try {
      const result = await requestDemoSession(globalThis.location.origin);
      if (result.kind === 'disabled') {
        setSession({ kind: 'needs_token' });
        return;
      }
      storeToken(result.token);
      setSession({ kind: 'signed_in', token: result.token });
    } catch (error) {
      setSession({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  }, []);

  useEffect(() => {
    if (session.kind === 'signing_in') void signIn();
  }, [session.kind, signIn]);

  const signOut = useCallback(() => {
    forgetToken();
    setSession({ kind: 'signing_in' });
  }, []);

  if (session.kind === 'signed_in') return <>{children({ token: session.token, signOut })}</>;
  return (
    <main className="session-screen">
      {session.kind === 'signing_in' && <p role="status">{t('app.signingIn')}</p>}
      {session.kind === 'failed' && (
        <div role="alert">
          <p>{t('app.signInFailed', { message: session.message })}</p>
          <button type="button" onClick={() => void signIn()}>
            {t('app.retry')}
          </button>
        </div>
      )}
      {session.kind === 'needs_token' && (
        <TokenForm
          onToken={(token) => {
            storeToken(token);
            setSession({ kind: 'signed_in', token });
          }}
        />
      )}
    </main>
  );
}

function TokenForm({ onToken }: { onToken: (token: string) => void }) {
  const { t } = useI18n();
  const [value, setValue] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (value.trim() !== '') onToken(value.trim());
  };
  return (
    <form onSubmit={submit} className="token-form">
      <label htmlFor="token-input">{t('app.tokenPrompt')}</label>
      <input
        id="token-input"
        type="password"
        autoComplete="off"
        value={value}
        onChange={(event) => setValue(event.target.value)}
      />
      <button type="submit">{t('app.tokenSubmit')}</button>
    </form>
  );
}
