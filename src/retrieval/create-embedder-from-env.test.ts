import { afterEach, describe, expect, it } from 'vitest';
import { createEmbedderFromEnv } from './openai-embedder.ts';
import { RetrievalError } from './retrieval-error.ts';
import { type FakeEmbeddingServer, startFakeEmbeddingServer } from './test-support/index.ts';

const API_KEY = 'sk-test-0123456789abcdef';

const servers: FakeEmbeddingServer[] = [];
async function fakeServer(): Promise<FakeEmbeddingServer> {
  const server = await startFakeEmbeddingServer();
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('createEmbedderFromEnv', () => {
  it('returns undefined when no embedding model is configured, even with a chat model setup', () => {
    expect(createEmbedderFromEnv({})).toBeUndefined();
    expect(
      createEmbedderFromEnv({ OPENAI_BASE_URL: 'https://api.openai.com/v1', OPENAI_API_KEY: API_KEY }),
    ).toBeUndefined();
  });

  it('falls back to OPENAI_BASE_URL and OPENAI_API_KEY and talks to that server', async () => {
    const server = await fakeServer();
    const embedder = createEmbedderFromEnv({
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: API_KEY,
      RUNSTREAM_EMBEDDING_MODEL: 'text-embedding-3-small',
      RUNSTREAM_EMBEDDING_DIMENSIONS: '16',
    });
    expect(embedder?.model).toBe('text-embedding-3-small@16');
    const [vector] = (await embedder?.embed(['退货'])) ?? [];
    expect(vector).toHaveLength(16);
    expect(server.requests[0]?.authorization).toBe(`Bearer ${API_KEY}`);
    expect(server.requests[0]?.body.dimensions).toBe(16);
  });

  it('prefers the RUNSTREAM_EMBEDDING_ variables', async () => {
    const server = await fakeServer();
    const embedder = createEmbedderFromEnv({
      OPENAI_BASE_URL: 'http://127.0.0.1:1/unused',
      OPENAI_API_KEY: 'sk-chat-key',
      RUNSTREAM_EMBEDDING_BASE_URL: server.baseUrl,
      RUNSTREAM_EMBEDDING_API_KEY: API_KEY,
      RUNSTREAM_EMBEDDING_MODEL: 'text-embedding-v4',
      RUNSTREAM_EMBEDDING_BATCH_SIZE: '2',
    });
    expect(embedder?.model).toBe('text-embedding-v4');
    await embedder?.embed(['a', 'b', 'c']);
    expect(server.requests.map((request) => request.body.input.length)).toEqual([2, 1]);
    expect(server.requests[0]?.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('explains a half-done or invalid configuration', () => {
    const missingUrl = (() => {
      try {
        createEmbedderFromEnv({ RUNSTREAM_EMBEDDING_MODEL: 'text-embedding-v4' });
      } catch (error) {
        return error;
      }
    })();
    expect(missingUrl).toBeInstanceOf(RetrievalError);
    expect((missingUrl as RetrievalError).message).toContain('RUNSTREAM_EMBEDDING_BASE_URL');
    expect(() =>
      createEmbedderFromEnv({ RUNSTREAM_EMBEDDING_BASE_URL: 'http://localhost:11434/v1' }),
    ).toThrow(/RUNSTREAM_EMBEDDING_MODEL/);
    expect(() =>
      createEmbedderFromEnv({
        RUNSTREAM_EMBEDDING_MODEL: 'm',
        RUNSTREAM_EMBEDDING_BASE_URL: 'http://localhost:11434/v1',
        RUNSTREAM_EMBEDDING_DIMENSIONS: 'lots',
      }),
    ).toThrow(/RUNSTREAM_EMBEDDING_DIMENSIONS must be a positive integer/);
  });
});
