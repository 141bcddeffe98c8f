import { z } from 'zod';
import { isHttpUrl } from '../shared/index.ts';
import { EnvironmentSettings } from './environment-settings.ts';
import { JsonEndpoint, type RequestPolicy, type RequestPolicyOptions } from './json-endpoint.ts';
import type { Reranker } from './reranker.ts';

/**
 * The two request shapes rerank servers speak:
 * - `rerank`: `{model, query, documents, top_n}`, answered with `{results: [{index, relevance_score}]}`:
 *   Cohere (`/v2/rerank`), Jina (`/v1/rerank`), vLLM and Xinference (`/v1/rerank`), DashScope's
 *   compatible mode (`/compatible-api/v1/reranks`, `qwen3-rerank`), SiliconFlow, OpenRouter …
 * - `dashscope`: DashScope's own text-rerank service (`gte-rerank-v2`), the same fields wrapped as
 *   `{model, input: {query, documents}, parameters: {top_n}}` and `{output: {results}}`.
 */
export type RerankApi = 'rerank' | 'dashscope';

/**
 * Requests are retried once after 200 ms, capped at 2 s, each given 5 s: a shopper is waiting, and
 * the fused order is a fallback.
 */
export interface HttpRerankerOptions extends RequestPolicyOptions {
  /** The full endpoint, e.g. `http://localhost:8000/v1/rerank` or `https://api.jina.ai/v1/rerank`. */
  url: string;
  /** Sent as `Authorization: Bearer …`; omit it for a local server without keys. */
  apiKey?: string;
  /** The provider's model name, e.g. `gte-rerank-v2`, `jina-reranker-v2-base-multilingual`. */
  model: string;
  /** Default: `dashscope` when the URL is DashScope's text-rerank service, else `rerank`. */
  api?: RerankApi;
}

const RERANK_REQUEST_DEFAULTS: RequestPolicy = {
  maxRetries: 1,
  initialDelayMs: 200,
  maxDelayMs: 2_000,
  timeoutMs: 5_000,
};

const RerankItemSchema = z.object({
  index: z.number().int().nonnegative(),
  relevance_score: z.number().finite(),
});
const RerankResponseSchema = z.union([
  z.object({ results: z.array(RerankItemSchema) }),
  z.object({ output: z.object({ results: z.array(RerankItemSchema) }) }),
]);

/**
 * A `Reranker` over a rerank API. One request per call, asking for every document back (`top_n` =
 * their count), since the search keeps its own cut-off. Servers answer best first; the scores are
 * put back in input order by each result's `index`, and an answer that does not score each document
 * exactly once is refused rather than guessed at.
 */
export class HttpReranker implements Reranker {
  readonly model: string;
  readonly api: RerankApi;
  readonly #endpoint: JsonEndpoint;

  constructor(options: HttpRerankerOptions) {
    if (options.model.trim() === '') throw new RangeError('model must not be empty');
    if (!isHttpUrl(options.url)) {
      throw new RangeError(`url is not an http(s) URL: ${JSON.stringify(options.url)}`);
    }
    this.model = options.model;
    this.api = options.api ?? (isDashScopeTextRerank(options.url) ? 'dashscope' : 'rerank');
    this.#endpoint = new JsonEndpoint({
      url: options.url,
      apiKey: options.apiKey,
      purpose: 'rerank',
      errorCode: 'rerank_failed',
      policy: options,
      defaults: RERANK_REQUEST_DEFAULTS,
    });
  }

  async rerank(
    query: string,
    documents: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<number[]> {
    options.signal?.throwIfAborted();
    if (documents.length === 0) return [];
    const topN = documents.length;
    const body =
      this.api === 'dashscope'
        ? {
            model: this.model,
            input: { query, documents },
            parameters: { top_n: topN, return_documents: false },
          }
        : { model: this.model, query, documents, top_n: topN, return_documents: false };
    const answer = await this.#endpoint.post(body, options.signal);
    const parsed = RerankResponseSchema.safeParse(answer);
    if (!parsed.success) {
      throw this.#endpoint.error(
        `got an unusable answer: not a rerank result list (${parsed.error.issues[0]?.message ?? ''})`,
      );
    }
    const results = 'results' in parsed.data ? parsed.data.results : parsed.data.output.results;
    const scores = new Array<number | undefined>(documents.length).fill(undefined);
    for (const result of results) {
      if (result.index >= documents.length || scores[result.index] !== undefined) {
        throw this.#endpoint.error(
          `got an unusable answer: result index ${result.index} is not one of 0…${documents.length - 1} once`,
        );
      }
      scores[result.index] = result.relevance_score;
    }
    const missing = scores.filter((score) => score === undefined).length;
    if (missing > 0) {
      throw this.#endpoint.error(
        `got an unusable answer: ${missing} of ${documents.length} documents came back without a score`,
      );
    }
    return scores as number[];
  }
}

/** DashScope's native text-rerank service (as opposed to its compatible-mode `/reranks`). */
function isDashScopeTextRerank(url: string): boolean {
  return new URL(url).pathname.includes('/services/rerank/');
}

/**
 * A reranker from environment variables, or `undefined` when none is configured:
 *
 * - `RUNSTREAM_RERANK_MODEL`: the model name; without it, no reranker.
 * - `RUNSTREAM_RERANK_URL`: the full endpoint URL (required with a model).
 * - `RUNSTREAM_RERANK_API_KEY`: optional (a local vLLM needs none).
 * - `RUNSTREAM_RERANK_API`: optional, `rerank` or `dashscope` (see `RerankApi`); guessed from the URL.
 *
 * A half-done configuration is an error rather than a silently missing reranker.
 */
export function createRerankerFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): HttpReranker | undefined {
  // Typed, so that TypeScript reads `settings.fail` as ending the function.
  const settings: EnvironmentSettings = new EnvironmentSettings(env, 'rerank_failed');
  settings.requireFor('RUNSTREAM_RERANK_MODEL', [
    'RUNSTREAM_RERANK_URL',
    'RUNSTREAM_RERANK_API',
    'RUNSTREAM_RERANK_API_KEY',
  ]);
  const model = settings.text('RUNSTREAM_RERANK_MODEL');
  if (model === undefined) return undefined;
  const url = settings.text('RUNSTREAM_RERANK_URL');
  const apiKey = settings.text('RUNSTREAM_RERANK_API_KEY');
  const api = settings.text('RUNSTREAM_RERANK_API');
  if (url === undefined || !isHttpUrl(url)) {
    settings.fail(
      `RUNSTREAM_RERANK_MODEL is set but RUNSTREAM_RERANK_URL ${url === undefined ? 'is not' : `is not an http(s) URL (${url})`}; ` +
        'it is the full endpoint, for example http://localhost:8000/v1/rerank',
    );
  }
  if (api !== undefined && api !== 'rerank' && api !== 'dashscope') {
    settings.fail(`RUNSTREAM_RERANK_API must be "rerank" or "dashscope", got "${api}"`);
  }
  return new HttpReranker({
    url,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(api === undefined ? {} : { api }),
  });
}
