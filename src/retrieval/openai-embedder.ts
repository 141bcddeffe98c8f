import { z } from 'zod';
import { describeEndpoint, isHttpUrl } from '../shared/index.ts';
import type { Embedder } from './embedder.ts';
import { EnvironmentSettings } from './environment-settings.ts';
import { JsonEndpoint, type RequestPolicy, type RequestPolicyOptions } from './json-endpoint.ts';
import { RetrievalError } from './retrieval-error.ts';

/**
 * Requests are retried up to 4 times after 500 ms doubling, capped at 30 s (also the longest
 * `Retry-After` waited for), each given 60 s: an ingest can wait, and should not fail on a blip.
 */
export interface OpenAiCompatibleEmbedderOptions extends RequestPolicyOptions {
  /**
   * The API root that `/embeddings` is appended to, e.g. `https://api.openai.com/v1`,
   * `https://dashscope.aliyuncs.com/compatible-mode/v1` or Ollama's `http://localhost:11434/v1`.
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omit it for servers without keys (a local Ollama). */
  apiKey?: string;
  /** The provider's model name, e.g. `text-embedding-v4` or `text-embedding-3-small`. */
  model: string;
  /**
   * Asks the server for vectors of this length (models with flexible output sizes) and checks that
   * every vector has it. Without it the server's default length is learned from the first vector.
   */
  dimensions?: number;
  /** Texts per request. Default 10: DashScope `text-embedding-v4` accepts at most 10 per request. */
  batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 10;
const EMBEDDING_REQUEST_DEFAULTS: RequestPolicy = {
  maxRetries: 4,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: 60_000,
};

/** The part of OpenAI's `POST /embeddings` answer this adapter reads; other fields are ignored. */
const EmbeddingResponseSchema = z.object({
  data: z.array(
    z.object({
      index: z.number().int().nonnegative().optional(),
      // Numbers as requested with `encoding_format: 'float'`; base64 from servers that ignore it.
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
});

/**
 * An `Embedder` over any server that speaks OpenAI's `POST {baseUrl}/embeddings`: OpenAI, DashScope's
 * compatible mode, Ollama, vLLM …
 *
 * Texts go out in batches of `batchSize`, one request after another (gentler on rate limits than a
 * burst). Each answer is put back in input order by its items' `index`, since servers may reorder
 * them. Retries, timeouts and error messages are `JsonEndpoint`'s: 408, 429, 5xx, timeouts and
 * network errors are retried with backoff, other statuses fail at once, and every failure is a
 * `RetrievalError` naming the endpoint and the server's message, never the API key.
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  /** `model@dimensions` when `dimensions` is set: the same model at two lengths is two spaces. */
  readonly model: string;
  readonly #providerModel: string;
  readonly #requestedDimensions: number | undefined;
  #learnedDimensions: number | undefined;
  readonly #endpoint: JsonEndpoint;
  readonly #batchSize: number;

  constructor(options: OpenAiCompatibleEmbedderOptions) {
    assertPositiveInteger('batchSize', options.batchSize);
    assertPositiveInteger('dimensions', options.dimensions);
    if (options.model.trim() === '') throw new RangeError('model must not be empty');
    const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
    if (!isHttpUrl(url)) {
      throw new RangeError(`baseUrl is not an http(s) URL: ${JSON.stringify(options.baseUrl)}`);
    }
    this.#providerModel = options.model;
    this.#requestedDimensions = options.dimensions;
    this.model = options.dimensions === undefined ? options.model : `${options.model}@${options.dimensions}`;
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#endpoint = new JsonEndpoint({
      url,
      apiKey: options.apiKey,
      purpose: 'embedding',
      errorCode: 'embedding_failed',
      policy: options,
      defaults: EMBEDDING_REQUEST_DEFAULTS,
    });
  }

  /**
   * The vector length: the requested `dimensions`, else the length of the first vector received.
   * 0 until then, when no `dimensions` was given: the server's default is not known in advance.
   */
  get dimensions(): number {
    return this.#requestedDimensions ?? this.#learnedDimensions ?? 0;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      const batch = texts.slice(start, start + this.#batchSize);
      vectors.push(...(await this.#embedBatch(batch, start, options.signal)));
    }
    return vectors;
  }

  async #embedBatch(batch: string[], firstIndex: number, signal?: AbortSignal): Promise<Float32Array[]> {
    const body = {
      model: this.#providerModel,
      input: batch,
      ...(this.#requestedDimensions === undefined ? {} : { dimensions: this.#requestedDimensions }),
      encoding_format: 'float',
    };
    return this.#readVectors(await this.#endpoint.post(body, signal), batch.length, firstIndex);
  }

  #readVectors(body: unknown, expectedCount: number, firstIndex: number): Float32Array[] {
    const parsed = EmbeddingResponseSchema.safeParse(body);
    if (!parsed.success) {
      throw this.#malformed(
        `the answer is not an embeddings list (${parsed.error.issues[0]?.message ?? ''})`,
      );
    }
    const items = parsed.data.data;
    if (items.length !== expectedCount) {
      throw this.#malformed(`${items.length} embeddings came back for ${expectedCount} texts`);
    }
    const ordered = orderByIndex(items);
    if (ordered === undefined) {
      throw this.#malformed(`the items' indexes are not each of 0…${expectedCount - 1} exactly once`);
    }
    return ordered.map((item, position) => {
      const vector = typeof item.embedding === 'string' ? decodeBase64Floats(item.embedding) : item.embedding;
      if (vector === undefined) throw this.#malformed('a base64 embedding is not a whole number of floats');
      this.#checkLength(vector.length, firstIndex + position);
      return Float32Array.from(vector);
    });
  }

  #checkLength(length: number, textIndex: number): void {
    const expected = this.#requestedDimensions ?? this.#learnedDimensions;
    if (expected === undefined && length > 0) {
      this.#learnedDimensions = length;
      return;
    }
    if (length === expected) return;
    const reason =
      this.#requestedDimensions !== undefined
        ? `${this.#requestedDimensions} were requested; does this server support the dimensions parameter for this model?`
        : `earlier vectors from this model had ${expected}`;
    throw new RetrievalError(
      'dimension_mismatch',
      `model ${JSON.stringify(this.#providerModel)} at ${describeEndpoint(this.#endpoint.url)} returned a vector of ` +
        `${length} dimensions for text ${textIndex}, but ${reason}`,
    );
  }

  #malformed(problem: string): RetrievalError {
    return this.#endpoint.error(`got an unusable answer: ${problem}`);
  }
}

/**
 * An embedder from environment variables, or `undefined` when no embedding model is configured
 * (the vector lane then stays off):
 *
 * - `RUNSTREAM_EMBEDDING_MODEL`: the model name; without it, no embedder.
 * - `RUNSTREAM_EMBEDDING_BASE_URL`, else `OPENAI_BASE_URL`: the API root.
 * - `RUNSTREAM_EMBEDDING_API_KEY`, else `OPENAI_API_KEY`: optional (a local Ollama needs none).
 * - `RUNSTREAM_EMBEDDING_DIMENSIONS`: optional vector length.
 * - `RUNSTREAM_EMBEDDING_BATCH_SIZE`: optional texts per request (default 10, DashScope's limit;
 *   OpenAI accepts far more).
 *
 * A half-done configuration (a model without any base URL, or embedding settings without a model)
 * is an error rather than a silently disabled lane.
 */
export function createEmbedderFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): OpenAiCompatibleEmbedder | undefined {
  // Typed, so that TypeScript reads `settings.fail` as ending the function.
  const settings: EnvironmentSettings = new EnvironmentSettings(env, 'embedding_failed');
  settings.requireFor('RUNSTREAM_EMBEDDING_MODEL', [
    'RUNSTREAM_EMBEDDING_BASE_URL',
    'RUNSTREAM_EMBEDDING_DIMENSIONS',
    'RUNSTREAM_EMBEDDING_BATCH_SIZE',
  ]);
  const model = settings.text('RUNSTREAM_EMBEDDING_MODEL');
  if (model === undefined) return undefined;
  const baseUrl = settings.text('RUNSTREAM_EMBEDDING_BASE_URL') ?? settings.text('OPENAI_BASE_URL');
  const apiKey = settings.text('RUNSTREAM_EMBEDDING_API_KEY') ?? settings.text('OPENAI_API_KEY');
  const dimensions = settings.positiveInteger('RUNSTREAM_EMBEDDING_DIMENSIONS');
  const batchSize = settings.positiveInteger('RUNSTREAM_EMBEDDING_BATCH_SIZE');
  if (baseUrl === undefined) {
    settings.fail(
      'RUNSTREAM_EMBEDDING_MODEL is set but neither RUNSTREAM_EMBEDDING_BASE_URL nor OPENAI_BASE_URL is ' +
        '(for example https://dashscope.aliyuncs.com/compatible-mode/v1)',
    );
  }
  if (!isHttpUrl(baseUrl)) {
    settings.fail(
      `the embedding base URL is not an http(s) URL: ${baseUrl} (for example http://localhost:11434/v1)`,
    );
  }
  return new OpenAiCompatibleEmbedder({
    baseUrl,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(dimensions === undefined ? {} : { dimensions }),
    ...(batchSize === undefined ? {} : { batchSize }),
  });
}

/** Items in input order by `index`, by position when no item has one; undefined when indexes are inconsistent. */
function orderByIndex<Item extends { index?: number | undefined }>(items: Item[]): Item[] | undefined {
  if (items.every((item) => item.index === undefined)) return items;
  const ordered: Item[] = new Array(items.length);
  for (const item of items) {
    if (item.index === undefined || item.index >= items.length || ordered[item.index] !== undefined)
      return undefined;
    ordered[item.index] = item;
  }
  return ordered;
}

/** Little-endian float32 bytes in base64, OpenAI's `encoding_format: 'base64'`. */
function decodeBase64Floats(encoded: string): number[] | undefined {
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.byteLength % 4 !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 4 }, (_, position) => view.getFloat32(position * 4, true));
}

function assertPositiveInteger(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}
