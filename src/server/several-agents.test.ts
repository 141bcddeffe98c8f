import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteKnowledgeStore } from '../retrieval/index.ts';
import {
  NOVASHOP_EXAMPLE,
  startTestServer,
  TEST_TOKEN,
  type TestServer,
} from './test-support/start-test-server.ts';

const HOMEFIX_EXAMPLE = fileURLToPath(new URL('../../examples/homefix/', import.meta.url));

/**
 * `runstream serve a/ b/`: two agent folders in one server, each with its own knowledge namespace,
 * conversations and citations; a start that serves only one of them leaves the other's documents be.
 */
describe('a server with two agent folders', () => {
  let scratch: string;
  let test: TestServer;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${test.server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
    });

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'runstream-two-agents-'));
    test = await startTestServer({
      agentDirectories: [NOVASHOP_EXAMPLE, HOMEFIX_EXAMPLE],
      env: { HOMEFIX_DATA_DIR: join(scratch, 'homefix') },
    });
  });
  afterAll(async () => {
    await test?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lists both, the first the default, with what the page shows of each', async () => {
    const { agents } = (await (await api('/v1/agents')).json()) as {
      agents: { id: string; language: string; ui: { title: string; examples: string[] } }[];
    };
    expect(agents.map((agent) => agent.id)).toEqual(['novashop', 'homefix']);
    expect(agents[1]).toMatchObject({ language: 'zh-CN', ui: { title: '家修帮 · 家电维修客服' } });
    expect(agents[1]?.ui.examples.length).toBeGreaterThan(0);

    const plain = (await (await api('/v1/conversations', { method: 'POST', body: '{}' })).json()) as {
      agentId: string;
    };
    expect(plain.agentId).toBe('novashop');
    const unknown = await api('/v1/conversations', { method: 'POST', body: '{"agentId":"nope"}' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('unknown_agent');
  });

  it("resolves a citation within the conversation's agent", async () => {
    const repair = (await (
      await api('/v1/conversations', { method: 'POST', body: '{"agentId":"homefix"}' })
    ).json()) as { id: string; agentId: string };
    expect(repair.agentId).toBe('homefix');
    const shop = (await (await api('/v1/conversations', { method: 'POST', body: '{}' })).json()) as {
      id: string;
    };
    const ofRepair = await api(
      `/v1/knowledge/sources?path=knowledge/warranty.md&conversation_id=${repair.id}`,
    );
    expect(ofRepair.status).toBe(200);
    expect(((await ofRepair.json()) as { text: string }).text).toContain('保修');
    // The shop has no knowledge/warranty.md of its own (its policy is under policies/).
    expect(
      (await api(`/v1/knowledge/sources?path=knowledge/warranty.md&conversation_id=${shop.id}`)).status,
    ).toBe(404);
    expect(
      (await api(`/v1/knowledge/sources?path=knowledge/policies/warranty.md&conversation_id=${shop.id}`))
        .status,
    ).toBe(200);
  });

  it("keeps each agent's documents in its own namespace, untouched by a start that serves the other alone", async () => {
    const counts = () => {
      const database = new Database(test.databasePath, { readonly: true });
      try {
        return Object.fromEntries(
          SqliteKnowledgeStore.namespaces(database).map((entry) => [entry.namespace, entry.documents]),
        );
      } finally {
        database.close();
      }
    };
    const both = counts();
    expect(both).toMatchObject({ novashop: 16, homefix: 5 });
    await test.server.close();
    const alone = await startTestServer({
      agentDirectories: [NOVASHOP_EXAMPLE],
      env: { RUNSTREAM_DB: test.databasePath },
    });
    try {
      expect(
        (await (
          await fetch(`${alone.server.url}/v1/agents`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })
        ).json()) as unknown,
      ).toEqual({
        agents: [expect.objectContaining({ id: 'novashop' })],
      });
    } finally {
      await alone.server.close();
      rmSync(alone.directory, { recursive: true, force: true });
    }
    expect(counts()).toEqual(both);
    test.server = await test.restart();
  });
});
