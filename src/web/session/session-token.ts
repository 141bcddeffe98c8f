/**
 * The page's credential: a bearer token kept in localStorage under `runstream.token`. Out of the box
 * the page asks the server's demo login (`POST /auth/demo-session`) for one; a real deployment turns
 * that off (`RUNSTREAM_DEMO_LOGIN=off`), signs people in with its own login, and stores the token it
 * issued under the same key before loading the page.
 */
export const TOKEN_STORAGE_KEY = 'runstream.token';

export function storedToken(): string | undefined {
  return globalThis.localStorage?.getItem(TOKEN_STORAGE_KEY) ?? undefined;
}

export function storeToken(token: string): void {
  globalThis.localStorage?.setItem(TOKEN_STORAGE_KEY, token);
}

export function forgetToken(): void {
  globalThis.localStorage?.removeItem(TOKEN_STORAGE_KEY);
}

export type DemoSessionResult =
  | { kind: 'signed_in'; token: string }
  /** The server has no demo login: a person must paste a token (or the deployment's login sets one). */
  | { kind: 'disabled' };

/** Ask the server's demo login for a token for the shared demo user. */
export async function requestDemoSession(origin: string): Promise<DemoSessionResult> {
  const response = await fetch(`${origin}/auth/demo-session`, {
    method: 'POST',
    headers: { accept: 'application/json' },
  });
  if (response.status === 404) return { kind: 'disabled' };
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const body = (await response.json()) as { token?: unknown };
  if (typeof body.token !== 'string' || body.token === '') throw new Error('the demo login sent no token');
  return { kind: 'signed_in', token: body.token };
}
