import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiCompatibleEmbedder } from './openai-embedder.ts';
import { RetrievalError } from './retrieval-error.ts';
import {
  type FakeEmbeddingServer,
  type FakeEmbeddingServerOptions,
  startFakeEmbeddingServer,
  vectorFor,
} from './test-support/index.ts';

const API_KEY = 'sk-test-0123456789abcdef';

const servers: FakeEmbeddingServer[] = [];
async function fakeServer(options: FakeEmbeddingServerOptions = {}): Promise<FakeEmbeddingServer> {
  const server = await startFakeEmbeddingServer(options);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Retries without waiting in tests, unless a test is about the wait. */
const fast = { initialDelayMs: 1, random: () => 0 };

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, the promise resolved');
}

async function retrievalErrorOf(promise: Promise<unknown>): Promise<RetrievalError> {
  const error = await rejectionOf(promise);
  if (error instanceof RetrievalError) return error;
  throw error;
}

const texts = (count: number) =>
  Array.from({ length: count }, (_, index) => `第 ${index} 条：签收后 7 天内可退货`);

describe('OpenAiCompatibleEmbedder', () => {
  it('sends batches of batchSize and returns the vectors in input order even when the server shuffles', async () => {
    const server = await fakeServer({ shuffle: true });
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'text-embedding-v4',
      batchSize: 10,
    });
    const input = texts(25);
    const vectors = await embedder.embed(input);

    expect(server.requests.map((request) => request.body.input.length)).toEqual([10, 10, 5]);
    expect(server.requests.flatMap((request) => request.body.input)).toEqual(input);
    expect(vectors.map((vector) => Array.from(vector))).toEqual(input.map((text) => vectorFor(text, 8)));
    for (const request of server.requests) {
      expect(request.authorization).toBe(`Bearer ${API_KEY}`);
      expect(request.contentType).toBe('application/json');
      expect(request.body.model).toBe('text-embedding-v4');
      expect(request.body.encoding_format).toBe('float');
      expect(request.body).not.toHaveProperty('dimensions');
    }
    expect(embedder.model).toBe('text-embedding-v4');
    expect(embedder.dimensions).toBe(8);
  });

  it('batches 10 texts by default and sends nothing for no texts', async () => {
    const server = await fakeServer();
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: `${server.baseUrl}/`, model: 'm' });
    expect(await embedder.embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
    await embedder.embed(texts(11));
    expect(server.requests.map((request) => request.body.input.length)).toEqual([10, 1]);
    expect(server.requests[0]?.authorization).toBeUndefined();
  });

  it('forwards dimensions in the body and names the space model@dimensions', async () => {
    const server = await fakeServer();
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'text-embedding-v4',
      dimensions: 4,
    });
    expect(embedder.model).toBe('text-embedding-v4@4');
    expect(embedder.dimensions).toBe(4);
    const [vector] = await embedder.embed(['这双鞋七天内能退吗？']);
    expect(server.requests[0]?.body.dimensions).toBe(4);
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector).toHaveLength(4);
  });

  it('retries a 429 after the Retry-After the server asked for', async () => {
    const server = await fakeServer({
      answer: (_request, number) =>
        number === 1
          ? {
              status: 429,
              headers: { 'retry-after': '1' },
              body: { error: { message: 'Requests rate limit exceeded', code: 'rate_limit_exceeded' } },
            }
          : undefined,
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const started = performance.now();
    const vectors = await embedder.embed(['退货']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
    expect(Array.from(vectors[0] ?? [])).toEqual(vectorFor('退货', 8));
  });

  it("honours OpenAI's retry-after-ms as well", async () => {
    const server = await fakeServer({
      answer: (_request, number) =>
        number === 1 ? { status: 429, headers: { 'retry-after-ms': '300' }, body: { error: {} } } : undefined,
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const started = performance.now();
    await embedder.embed(['退货']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(server.requests).toHaveLength(2);
  });

  it('fails at once when Retry-After is longer than it may wait', async () => {
    const server = await fakeServer({
      answer: () => ({
        status: 429,
        headers: { 'retry-after': '3600' },
        body: { error: { message: 'quota' } },
      }),
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const error = await retrievalErrorOf(embedder.embed(['退货']));
    expect(error.code).toBe('embedding_failed');
    expect(error.message).toContain('429');
    expect(error.message).toContain('3600 s');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 500 and succeeds', async () => {
    const server = await fakeServer({
      answer: (_request, number) =>
        number <= 2 ? { status: 500, body: { error: { message: 'internal error' } } } : undefined,
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const vectors = await embedder.embed(['a', 'b']);
    expect(server.requests).toHaveLength(3);
    expect(vectors).toHaveLength(2);
  });

  it('gives up after maxRetries, with the status and the server message', async () => {
    const server = await fakeServer({
      answer: () => ({ status: 503, body: { error: { message: 'model overloaded' } } }),
    });
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: 'm',
      maxRetries: 2,
      ...fast,
    });
    const error = await retrievalErrorOf(embedder.embed(['a']));
    expect(server.requests).toHaveLength(3);
    expect(error.code).toBe('embedding_failed');
    expect(error.message).toContain('503');
    expect(error.message).toContain('model overloaded');
    expect(error.message).toContain('3 attempts');
    expect(error.message).toContain(`${server.baseUrl}/embeddings`);
  });

  it('retries a cut connection', async () => {
    const server = await fakeServer({
      answer: (_request, number) => (number === 1 ? { dropConnection: true } : undefined),
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    expect(await embedder.embed(['a'])).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a request that got no answer within timeoutMs', async () => {
    const server = await fakeServer({
      answer: (_request, number) => (number === 1 ? { stall: true } : undefined),
    });
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: 'm',
      timeoutMs: 200,
      ...fast,
    });
    expect(await embedder.embed(['a'])).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 401, and never shows the API key even when the server echoes it', async () => {
    const server = await fakeServer({
      answer: (request) => ({
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${request.authorization?.replace('Bearer ', '')}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      }),
    });
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'm',
      ...fast,
    });
    const error = await retrievalErrorOf(embedder.embed(['a']));
    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe('embedding_failed');
    expect(error.message).toContain('401');
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).toContain('invalid_api_key');
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(String(error.stack)).not.toContain(API_KEY);
  });

  it.each([400, 403, 404])('does not retry a %i', async (status) => {
    const server = await fakeServer({
      answer: () => ({ status, body: { error: { message: `refused with ${status}` } } }),
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const error = await retrievalErrorOf(embedder.embed(['a']));
    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe('embedding_failed');
    expect(error.message).toContain(String(status));
    expect(error.message).toContain(`refused with ${status}`);
  });

  it('reports a plain-text error body as it is', async () => {
    const server = await fakeServer({
      answer: () => ({ status: 400, body: 'model "nope" not found, try pulling it first' }),
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'nope', ...fast });
    const error = await retrievalErrorOf(embedder.embed(['a']));
    expect(error.message).toContain('model "nope" not found');
  });

  it('reports dimension_mismatch when the server ignores the requested dimensions', async () => {
    const server = await fakeServer({ vectorLength: () => 3 });
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: 'm',
      dimensions: 4,
      ...fast,
    });
    const error = await retrievalErrorOf(embedder.embed(['a', 'b']));
    expect(error.code).toBe('dimension_mismatch');
    expect(error.message).toContain('3 dimensions');
    expect(error.message).toContain('4 were requested');
    expect(server.requests).toHaveLength(1);
  });

  it('reports dimension_mismatch when a later answer changes length', async () => {
    const server = await fakeServer({ vectorLength: (_request, number) => (number === 1 ? 8 : 6) });
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: 'm',
      batchSize: 2,
      ...fast,
    });
    const error = await retrievalErrorOf(embedder.embed(['a', 'b', 'c']));
    expect(error.code).toBe('dimension_mismatch');
    expect(error.message).toContain('6 dimensions for text 2');
    expect(error.message).toContain('earlier vectors from this model had 8');
  });

  it('refuses an answer with fewer embeddings than texts, or inconsistent indexes', async () => {
    const server = await fakeServer({
      answer: (_request, number) => ({
        status: 200,
        body: {
          object: 'list',
          data:
            number === 1
              ? [{ object: 'embedding', index: 0, embedding: [1, 2] }]
              : [
                  { object: 'embedding', index: 0, embedding: [1, 2] },
                  { object: 'embedding', index: 0, embedding: [3, 4] },
                ],
          model: 'm',
          usage: { prompt_tokens: 2, total_tokens: 2 },
        },
      }),
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const short = await retrievalErrorOf(embedder.embed(['a', 'b']));
    expect(short.code).toBe('embedding_failed');
    expect(short.message).toContain('1 embeddings came back for 2 texts');
    const duplicated = await retrievalErrorOf(embedder.embed(['a', 'b']));
    expect(duplicated.message).toContain('indexes');
  });

  it('decodes base64 embeddings from servers that ignore encoding_format', async () => {
    const floats = new Float32Array([0.25, -1.5, 3]);
    const server = await fakeServer({
      answer: () => ({
        status: 200,
        body: {
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: Buffer.from(floats.buffer).toString('base64') }],
          model: 'm',
          usage: { prompt_tokens: 1, total_tokens: 1 },
        },
      }),
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const [vector] = await embedder.embed(['a']);
    expect(Array.from(vector ?? [])).toEqual([0.25, -1.5, 3]);
  });

  it('stops waiting for an answer when the signal aborts', async () => {
    const server = await fakeServer({ answer: () => ({ stall: true }) });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    const error = await rejectionOf(embedder.embed(['a'], { signal: controller.signal }));
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });

  it('stops waiting between retries when the signal aborts', async () => {
    const server = await fakeServer({
      answer: () => ({ status: 503, headers: { 'retry-after': '20' }, body: { error: { message: 'busy' } } }),
    });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', ...fast });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const error = await rejectionOf(embedder.embed(['a'], { signal: controller.signal }));
    expect((error as DOMException).name).toBe('AbortError');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const server = await fakeServer();
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm' });
    await expect(embedder.embed(['a'], { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(server.requests).toHaveLength(0);
  });

  it('refuses nonsensical options', () => {
    expect(() => new OpenAiCompatibleEmbedder({ baseUrl: 'localhost:11434', model: 'm' })).toThrow(
      RangeError,
    );
    expect(() => new OpenAiCompatibleEmbedder({ baseUrl: 'http://x/v1', model: '' })).toThrow(RangeError);
    expect(() => new OpenAiCompatibleEmbedder({ baseUrl: 'http://x/v1', model: 'm', batchSize: 0 })).toThrow(
      RangeError,
    );
    expect(
      () => new OpenAiCompatibleEmbedder({ baseUrl: 'http://x/v1', model: 'm', dimensions: -1 }),
    ).toThrow(RangeError);
  });
});
