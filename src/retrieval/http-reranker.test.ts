import { afterEach, describe, expect, it } from 'vitest';
import { createRerankerFromEnv, HttpReranker } from './http-reranker.ts';
import { RetrievalError } from './retrieval-error.ts';
import { type FakeRerankServer, startFakeRerankServer } from './test-support/index.ts';

const API_KEY = 'rk-test-0123456789abcdef';

let fake: FakeRerankServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('HttpReranker', () => {
  it('speaks the Cohere / Jina / vLLM shape and puts the scores back in input order', async () => {
    fake = await startFakeRerankServer();
    const reranker = new HttpReranker({
      url: fake.url('/v1/rerank'),
      model: 'bge-reranker-v2-m3',
      apiKey: API_KEY,
    });
    const scores = await reranker.rerank('七天退货', ['运费说明', '七天无理由退货', '退货地址']);
    expect(scores).toEqual([0, 1, 0.5]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toEqual({
      path: '/v1/rerank',
      authorization: `Bearer ${API_KEY}`,
      body: {
        model: 'bge-reranker-v2-m3',
        query: '七天退货',
        documents: ['运费说明', '七天无理由退货', '退货地址'],
        top_n: 3,
        return_documents: false,
      },
    });
  });

  it('speaks DashScope’s text-rerank shape at its URL, and sends no key when it has none', async () => {
    fake = await startFakeRerankServer();
    const reranker = new HttpReranker({
      url: fake.url('/api/v1/services/rerank/text-rerank/text-rerank'),
      model: 'gte-rerank-v2',
    });
    expect(reranker.api).toBe('dashscope');
    expect(await reranker.rerank('保修', ['保修一年', '包邮'])).toEqual([1, 0]);
    expect(fake.requests[0]?.authorization).toBeUndefined();
    expect(fake.requests[0]?.body).toEqual({
      model: 'gte-rerank-v2',
      input: { query: '保修', documents: ['保修一年', '包邮'] },
      parameters: { top_n: 2, return_documents: false },
    });
  });

  it('retries a 503 once, then answers', async () => {
    fake = await startFakeRerankServer({
      answer: (_, number) => (number === 1 ? { status: 503, body: { message: 'busy' } } : undefined),
    });
    const reranker = new HttpReranker({ url: fake.url('/v1/rerank'), model: 'm', initialDelayMs: 1 });
    expect(await reranker.rerank('a', ['a', 'b'])).toEqual([1, 0]);
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up after that one retry: a shopper is waiting', async () => {
    fake = await startFakeRerankServer({ answer: () => ({ status: 503, body: { message: 'busy' } }) });
    const reranker = new HttpReranker({ url: fake.url('/v1/rerank'), model: 'm', initialDelayMs: 1 });
    await expect(reranker.rerank('a', ['a'])).rejects.toThrow(/HTTP 503.*gave up after 2 attempts/);
    expect(fake.requests).toHaveLength(2);
  });

  it('fails at once on a 401, naming the status and the server’s message but never the key', async () => {
    fake = await startFakeRerankServer({
      answer: () => ({ status: 401, body: { message: `Invalid API key: ${API_KEY}` } }),
    });
    const reranker = new HttpReranker({ url: fake.url('/v1/rerank'), model: 'm', apiKey: API_KEY });
    const failure = await reranker.rerank('a', ['a']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RetrievalError);
    expect((failure as RetrievalError).code).toBe('rerank_failed');
    expect((failure as RetrievalError).message).toMatch(
      /rerank request POST .*\/v1\/rerank failed: HTTP 401/,
    );
    expect((failure as RetrievalError).message).toContain('[redacted]');
    expect((failure as RetrievalError).message).not.toContain(API_KEY);
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    [
      'a document without a score',
      { results: [{ index: 0, relevance_score: 0.9 }] },
      /1 of 2 documents came back without a score/,
    ],
    [
      'an index twice',
      {
        results: [
          { index: 0, relevance_score: 0.9 },
          { index: 0, relevance_score: 0.1 },
        ],
      },
      /result index 0 is not one of 0…1 once/,
    ],
    ['an index out of range', { results: [{ index: 2, relevance_score: 0.9 }] }, /result index 2/],
    ['another shape', { data: [0.1, 0.2] }, /not a rerank result list/],
    ['a body that is not JSON', 'oops', /not JSON/],
  ])('refuses an answer with %s', async (_, body, message) => {
    fake = await startFakeRerankServer({ answer: () => ({ status: 200, body }) });
    const reranker = new HttpReranker({ url: fake.url('/v1/rerank'), model: 'm' });
    await expect(reranker.rerank('a', ['a', 'b'])).rejects.toThrow(message);
  });

  it('sends nothing for no documents, and refuses a bad URL or an empty model', async () => {
    fake = await startFakeRerankServer();
    expect(await new HttpReranker({ url: fake.url('/v1/rerank'), model: 'm' }).rerank('a', [])).toEqual([]);
    expect(fake.requests).toHaveLength(0);
    expect(() => new HttpReranker({ url: 'ftp://x/rerank', model: 'm' })).toThrow(RangeError);
    expect(() => new HttpReranker({ url: 'http://x/rerank', model: ' ' })).toThrow(RangeError);
    expect(() => new HttpReranker({ url: 'http://x/rerank', model: 'm', timeoutMs: Number.NaN })).toThrow(
      /timeoutMs must be an integer of at least 1/,
    );
    expect(() => new HttpReranker({ url: 'http://x/rerank', model: 'm', maxRetries: -1 })).toThrow(
      /maxRetries must be an integer of at least 0/,
    );
  });
});

describe('createRerankerFromEnv', () => {
  it('is off without a model, and refuses a half-done configuration', () => {
    expect(createRerankerFromEnv({})).toBeUndefined();
    expect(() => createRerankerFromEnv({ RUNSTREAM_RERANK_URL: 'http://x/v1/rerank' })).toThrow(
      /RUNSTREAM_RERANK_URL is set but RUNSTREAM_RERANK_MODEL is not/,
    );
    expect(() => createRerankerFromEnv({ RUNSTREAM_RERANK_MODEL: 'm' })).toThrow(
      /RUNSTREAM_RERANK_URL is not/,
    );
    expect(() => createRerankerFromEnv({ RUNSTREAM_RERANK_MODEL: 'm', RUNSTREAM_RERANK_URL: 'x' })).toThrow(
      /not an http\(s\) URL/,
    );
    expect(() =>
      createRerankerFromEnv({
        RUNSTREAM_RERANK_MODEL: 'm',
        RUNSTREAM_RERANK_URL: 'http://x/v1/rerank',
        RUNSTREAM_RERANK_API: 'cohere',
      }),
    ).toThrow(/must be "rerank" or "dashscope"/);
  });

  it('builds a reranker, guessing the API from the URL unless told', () => {
    const compatible = createRerankerFromEnv({
      RUNSTREAM_RERANK_MODEL: 'qwen3-rerank',
      RUNSTREAM_RERANK_URL: 'https://dashscope.aliyuncs.com/compatible-api/v1/reranks',
    });
    expect(compatible?.api).toBe('rerank');
    const native = createRerankerFromEnv({
      RUNSTREAM_RERANK_MODEL: 'gte-rerank-v2',
      RUNSTREAM_RERANK_URL: 'https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank',
    });
    expect(native?.api).toBe('dashscope');
    expect(native?.model).toBe('gte-rerank-v2');
  });
});
