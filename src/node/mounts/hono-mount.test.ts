import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itRunsTheMountScenario, type MountedApp } from '../test-support/mount-scenario.ts';
import { ALICE, BASE_PATH, openSupportRunstream, SESSIONS } from '../test-support/support-runstream.ts';

/**
 * runstream in a real Hono app served by `@hono/node-server`: the host's login middleware on
 * `/support/*` puts its user in Hono's context, and the route hands the Web request and that user
 * to `runstream.fetch` (the Web-standard path: no Node objects reach runstream).
 */

type HostUser = { id: string; name: string };
type HostEnv = { Variables: { user: HostUser | undefined } };

async function openHonoApp(): Promise<MountedApp> {
  const support = await openSupportRunstream<{ user?: HostUser }>((_request, context) =>
    context.user ? { userId: context.user.id, name: context.user.name } : null,
  );
  const app = new Hono<HostEnv>();
  app.get('/', (c) => c.text('the host app'));
  app.use(`${BASE_PATH}/*`, async (c, next) => {
    const header = c.req.header('authorization');
    const session = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    c.set('user', session === undefined ? undefined : SESSIONS[session]);
    await next();
  });
  app.all(`${BASE_PATH}/*`, (c) => support.runstream.fetch(c.req.raw, { user: c.get('user') }));

  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    fetchAs:
      (session?: string): typeof fetch =>
      (input, init) => {
        const headers = new Headers(init?.headers);
        if (session !== undefined) headers.set('authorization', `Bearer ${session}`);
        return fetch(input, { ...init, headers });
      },
    openai: (session) => new OpenAI({ baseURL: `${origin}${BASE_PATH}/v1`, apiKey: session, maxRetries: 0 }),
    async close() {
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await support.close();
    },
  };
}

let mount: MountedApp | undefined;

beforeAll(async () => {
  mount = await openHonoApp();
});

afterAll(async () => {
  await mount?.close();
});

function opened(): MountedApp {
  if (mount === undefined) throw new Error('the Hono app did not open');
  return mount;
}

describe('runstream in a Hono app under /support (runstream.fetch)', () => {
  itRunsTheMountScenario(opened);

  it('leaves the host’s other routes to the host', async () => {
    const { origin, fetchAs } = opened();
    const home = await fetchAs(ALICE)(`${origin}/`);
    expect(await home.text()).toBe('the host app');
    // Outside the mount, runstream's routes do not answer.
    expect((await fetchAs(ALICE)(`${origin}/v1/conversations`)).status).toBe(404);
  });
});
