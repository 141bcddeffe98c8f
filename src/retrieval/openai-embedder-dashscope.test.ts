import { afterEach, describe, expect, it } from 'vitest';
import { createEmbedderFromEnv, OpenAiCompatibleEmbedder } from './openai-embedder.ts';
import { RetrievalError } from './retrieval-error.ts';
import {
  type DashScopeEmbeddingServer,
  startDashScopeEmbeddingServer,
  vectorFor,
} from './test-support/index.ts';

/** DashScope keys look like `sk-` and 32 hex digits. */
const API_KEY = 'sk-0f3c9a7e51b24d6c8e2a4b7d9c1e3f50';

const servers: DashScopeEmbeddingServer[] = [];
async function dashScope(): Promise<DashScopeEmbeddingServer> {
  const server = await startDashScopeEmbeddingServer({ apiKey: API_KEY });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Retries without waiting, so a wrongly retried 4xx shows as extra requests rather than a slow test. */
const fast = { initialDelayMs: 1, random: () => 0 };

async function retrievalErrorOf(promise: Promise<unknown>): Promise<RetrievalError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RetrievalError) return error;
    throw error;
  }
  throw new Error('expected a RetrievalError, the promise resolved');
}

const clauses = (count: number) =>
  Array.from({ length: count }, (_, index) => `第 ${index + 1} 条：未发货订单可在「我的订单」中直接取消`);

describe('OpenAiCompatibleEmbedder against DashScope compatible mode (recorded answers)', () => {
  it('splits 25 texts at DashScope’s 10 rows, gets text-embedding-v4’s default 1,024 dimensions, keeps the order', async () => {
    const server = await dashScope();
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'text-embedding-v4',
    });
    const input = clauses(25);
    const vectors = await embedder.embed(input);

    expect(server.requests.map((request) => request.body.input.length)).toEqual([10, 10, 5]);
    for (const request of server.requests) {
      expect(request.path).toBe('/compatible-mode/v1/embeddings');
      expect(request.body).toEqual({
        model: 'text-embedding-v4',
        input: expect.any(Array),
        encoding_format: 'float',
      });
    }
    expect(vectors).toHaveLength(25);
    expect(vectors.every((vector) => vector.length === 1024)).toBe(true);
    expect(Array.from(vectors[24] ?? [])).toEqual(vectorFor(input[24] ?? '', 1024));
    expect(embedder.dimensions).toBe(1024);
  });

  it('surfaces DashScope’s batch-size refusal with its message, once, when batchSize is above the limit', async () => {
    const server = await dashScope();
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'text-embedding-v4',
      batchSize: 16,
      ...fast,
    });
    const error = await retrievalErrorOf(embedder.embed(clauses(16)));
    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe('embedding_failed');
    expect(error.message).toContain('HTTP 400');
    expect(error.message).toContain('batch size is invalid, it should not be larger than 10');
    expect(error.message).toContain('[InvalidParameter]');
    expect(error.message).toContain(`${server.baseUrl}/embeddings`);
  });

  it('sends 25 rows to text-embedding-v2 in one request, and the 26th is refused with the legacy wording', async () => {
    const server = await dashScope();
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'text-embedding-v2',
      batchSize: 26,
      ...fast,
    });
    expect(await embedder.embed(clauses(25))).toHaveLength(25);
    const error = await retrievalErrorOf(embedder.embed(clauses(26)));
    expect(server.requests.map((request) => request.body.input.length)).toEqual([25, 26]);
    expect(error.message).toContain('it should not be larger than 25.: payload.input.contents');
  });

  it.each([
    ['text-embedding-v4', 64],
    ['text-embedding-v4', 2048],
    ['text-embedding-v3', 768],
  ])('sends dimensions to %s and checks every vector has %i', async (model, dimensions) => {
    const server = await dashScope();
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model,
      dimensions,
    });
    const vectors = await embedder.embed(clauses(12));
    expect(server.requests.map((request) => request.body.dimensions)).toEqual([dimensions, dimensions]);
    expect(vectors.map((vector) => vector.length)).toEqual(Array(12).fill(dimensions));
    expect(embedder.model).toBe(`${model}@${dimensions}`);
  });

  it('surfaces the refusal of a dimensions value the model does not offer, without retrying', async () => {
    const server = await dashScope();
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'text-embedding-v4',
      dimensions: 1000,
      ...fast,
    });
    const error = await retrievalErrorOf(embedder.embed(['七天无理由退货']));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body.dimensions).toBe(1000);
    expect(error.code).toBe('embedding_failed');
    expect(error.message).toContain('HTTP 400');
    expect(error.message).toContain('dimension for embedding v3 is invalid');
  });

  it('reports dimension_mismatch when text-embedding-v2 ignores dimensions and answers 1,536', async () => {
    const server = await dashScope();
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'text-embedding-v2',
      dimensions: 1024,
      ...fast,
    });
    const error = await retrievalErrorOf(embedder.embed(['七天无理由退货']));
    expect(server.requests[0]?.body.dimensions).toBe(1024);
    expect(error.code).toBe('dimension_mismatch');
    expect(error.message).toContain('1536 dimensions');
    expect(error.message).toContain('1024 were requested');
  });

  it('surfaces DashScope’s 401 with its message and code, once, and never the key', async () => {
    const server = await dashScope();
    const wrongKey = 'sk-9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a';
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: wrongKey,
      model: 'text-embedding-v4',
      ...fast,
    });
    const error = await retrievalErrorOf(embedder.embed(['七天无理由退货']));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.authorization).toBe(`Bearer ${wrongKey}`);
    expect(error.message).toContain('HTTP 401');
    expect(error.message).toContain('Incorrect API key provided.');
    expect(error.message).toContain('[invalid_api_key]');
    expect(error.message).not.toContain(wrongKey);
    expect(JSON.stringify(error)).not.toContain(wrongKey);
    expect(String(error.stack)).not.toContain(wrongKey);
  });

  it('runs from the documented environment variables', async () => {
    const server = await dashScope();
    const embedder = createEmbedderFromEnv({
      RUNSTREAM_EMBEDDING_BASE_URL: server.baseUrl,
      RUNSTREAM_EMBEDDING_API_KEY: API_KEY,
      RUNSTREAM_EMBEDDING_MODEL: 'text-embedding-v4',
      RUNSTREAM_EMBEDDING_DIMENSIONS: '512',
    });
    const vectors = (await embedder?.embed(clauses(11))) ?? [];
    expect(server.requests.map((request) => request.body.input.length)).toEqual([10, 1]);
    expect(vectors.map((vector) => vector.length)).toEqual(Array(11).fill(512));
    expect(embedder?.model).toBe('text-embedding-v4@512');
  });
});
