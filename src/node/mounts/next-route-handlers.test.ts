import OpenAI from 'openai';
import { afterAll, beforeAll, describe } from 'vitest';
import type { RouteHandlers } from '../../index.ts';
import { itRunsTheMountScenario, type MountedApp } from '../test-support/mount-scenario.ts';
import { openSupportRunstream, userOfSession } from '../test-support/support-runstream.ts';

/**
 * runstream in a Next.js App Router catch-all route, without Next itself: the route file exports
 * the handlers by method name, and Next calls them with a `Request` and `{ params }`.
 *
 * ```ts
 * // app/support/[...path]/route.ts
 * export const { GET, POST } = runstream.handlers;
 * ```
 */

/** What Next passes beside the request to a handler of `app/support/[...path]/route.ts`. */
interface RouteContext {
  params: Promise<{ path: string[] }>;
}

/** The host's login: its session cookie, read in `authenticate` from the request alone. */
function sessionCookieOf(request: Request): string | undefined {
  for (const pair of (request.headers.get('cookie') ?? '').split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name === 'session') return decodeURIComponent(value.join('='));
  }
  return undefined;
}

async function openNextRoute(): Promise<MountedApp> {
  const support = await openSupportRunstream<RouteContext>((request) =>
    userOfSession(sessionCookieOf(request)),
  );
  // The route module: `export const { GET, POST } = runstream.handlers;`
  const { GET, POST } = support.runstream.handlers;
  const route: Partial<Record<string, RouteHandlers<RouteContext>['GET']>> = { GET, POST };
  const origin = 'http://localhost';

  /** As Next routes a request to the module: by method (405 for one it does not export), with `params`. */
  const fetchAs =
    (session?: string): typeof fetch =>
    async (input, init) => {
      const request = new Request(input, init);
      if (session !== undefined) request.headers.set('cookie', `theme=dark; session=${session}`);
      const handler = route[request.method];
      if (handler === undefined) return new Response(null, { status: 405 });
      const path = new URL(request.url).pathname.split('/').filter(Boolean).slice(1);
      return handler(request, { params: Promise.resolve({ path }) });
    };
  return {
    origin,
    fetchAs,
    openai: (session) =>
      new OpenAI({
        baseURL: `${origin}/support/v1`,
        apiKey: 'unused: the cookie signs in',
        maxRetries: 0,
        fetch: fetchAs(session),
      }),
    close: () => support.close(),
  };
}

let mount: MountedApp | undefined;

beforeAll(async () => {
  mount = await openNextRoute();
});

afterAll(async () => {
  await mount?.close();
});

describe('runstream as a Next.js App Router route (export const { GET, POST } = runstream.handlers)', () => {
  itRunsTheMountScenario(() => {
    if (mount === undefined) throw new Error('the route did not open');
    return mount;
  });
});
