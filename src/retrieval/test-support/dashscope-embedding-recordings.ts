/**
 * What Alibaba Model Studio (DashScope) answers on its OpenAI-compatible embeddings endpoint,
 * `POST https://dashscope.aliyuncs.com/compatible-mode/v1/embeddings` (Singapore:
 * `dashscope-intl.aliyuncs.com`), as documented or as captured in public reports. Each recording
 * names its source; the bodies are kept byte for byte (request ids included) so the replay server
 * sends what DashScope sends, not what we think it sends.
 */

/** The per-model rules the replay server enforces, each from the docs cited beside it. */
export interface DashScopeEmbeddingModelRules {
  /** Most texts (rows) one request may carry; more is a 400. */
  maxRows: number;
  /** The vector length without `dimensions`. */
  defaultDimensions: number;
  /**
   * The `dimensions` values accepted and the 400 body for any other; `ignored` for the models with a
   * fixed length, which return it whatever was asked and say nothing.
   */
  dimensions: { accepted: readonly number[]; refusalBody: string } | 'ignored';
  /** The 400 body for a batch over `maxRows`. */
  batchTooLargeBody: string;
}

/**
 * 400 for 26+ texts to text-embedding-v2, verbatim (Python's repr turned back into JSON) from
 * https://github.com/HKUDS/LightRAG/issues/319 (2024-11): the older wording, without the
 * `InternalError.Algo` prefix.
 */
const LEGACY_BATCH_TOO_LARGE =
  '{"error":{"code":"InvalidParameter","param":null,"message":"batch size is invalid, it should not be larger than 25.: payload.input.contents","type":"InvalidParameter"},"id":"ce6c0c89-a338-9df8-afa8-acbd4d544f35","request_id":"ce6c0c89-a338-9df8-afa8-acbd4d544f35"}';

/**
 * text-embedding-v4: 2,048, 1,536, 1,024 (default), 768, 512, 256, 128, 64 dimensions; at most 10
 * rows. https://www.alibabacloud.com/help/en/model-studio/embedding-interfaces-compatible-with-openai
 * and https://docs.qwencloud.com/api-reference/text-embedding/openai-embedding ("Only float is
 * supported" for `encoding_format`). DashScope's own refusal lists 3072 as well; the docs do not, and
 * the replay follows the docs.
 *
 * text-embedding-v3: 1,024 (default), 768, 512 in Singapore, plus 256, 128, 64 in Beijing
 * (https://help.aliyun.com/zh/model-studio/text-embedding-synchronous-api); at most 10 rows today
 * (the same page said 6, then 20, in earlier revisions: the limit moves, which is why runstream sends
 * the provider's refusal on rather than keeping its own table). The replay plays Beijing, the host
 * the README and docs/retrieval.md use.
 *
 * text-embedding-v1 / v2: 1,536 dimensions, fixed; at most 25 rows (same page). `dimensions` is
 * ignored without an error, as a langchain4j-community maintainer verified:
 * https://github.com/langchain4j/langchain4j-community/pull/783
 */
export const DASHSCOPE_EMBEDDING_MODELS: Readonly<Record<string, DashScopeEmbeddingModelRules>> = {
  'text-embedding-v4': {
    maxRows: 10,
    defaultDimensions: 1024,
    dimensions: {
      accepted: [2048, 1536, 1024, 768, 512, 256, 128, 64],
      refusalBody: invalidDimensionRecording('[64, 128, 256, 512, 768, 1024, 1536, 2048, 3072]'),
    },
    batchTooLargeBody: batchTooLargeRecording(),
  },
  'text-embedding-v3': {
    maxRows: 10,
    defaultDimensions: 1024,
    dimensions: {
      accepted: [1024, 768, 512, 256, 128, 64],
      refusalBody: invalidDimensionRecording('[64, 128, 256, 512, 768, 1024]'),
    },
    batchTooLargeBody: batchTooLargeRecording(),
  },
  'text-embedding-v2': {
    maxRows: 25,
    defaultDimensions: 1536,
    dimensions: 'ignored',
    batchTooLargeBody: LEGACY_BATCH_TOO_LARGE,
  },
  'text-embedding-v1': {
    maxRows: 25,
    defaultDimensions: 1536,
    dimensions: 'ignored',
    batchTooLargeBody: LEGACY_BATCH_TOO_LARGE,
  },
};

/**
 * The documented success answer (text-embedding-v4, the cURL example of
 * https://help.aliyun.com/zh/model-studio/embedding-interfaces-compatible-with-openai): OpenAI's shape
 * plus a top-level `id`, keys in DashScope's order. The documented vector is elided ("...") there, so
 * `embedding` here is the vector the replay computes.
 */
export function dashScopeEmbeddingsBody(options: {
  model: string;
  vectors: readonly (readonly number[])[];
  promptTokens: number;
  id: string;
}): string {
  return JSON.stringify({
    data: options.vectors.map((embedding, index) => ({ embedding, index, object: 'embedding' })),
    model: options.model,
    object: 'list',
    usage: { prompt_tokens: options.promptTokens, total_tokens: options.promptTokens },
    id: options.id,
  });
}

/**
 * 401 for a wrong key, from the "异常响应示例" (error response example) of
 * https://help.aliyun.com/zh/model-studio/embedding-interfaces-compatible-with-openai, verbatim
 * (the trailing space in the message is DashScope's). Unlike OpenAI it does not quote the key.
 */
export const DASHSCOPE_INVALID_KEY_BODY =
  '{"error":{"message":"Incorrect API key provided. ","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}';

/**
 * 400 for 11+ texts to text-embedding-v3/v4, verbatim from
 * https://github.com/jjyaoao/HelloAgents/issues/27 (2025-12, text-embedding-v4); the same message
 * with another id in https://github.com/memodb-io/memobase/issues/142 and
 * https://github.com/zilliztech/claude-context/issues/177.
 */
function batchTooLargeRecording(): string {
  return '{"error":{"message":"<400> InternalError.Algo.InvalidParameter: Value error, batch size is invalid, it should not be larger than 10.: input.contents","type":"InvalidParameter","param":null,"code":"InvalidParameter"},"id":"318cff27-38bd-4289-8f70-18d8d37bded9","request_id":"318cff27-38bd-4289-8f70-18d8d37bded9"}';
}

/**
 * 400 for a `dimensions` value the model refuses. Reconstructed, not captured whole: the message
 * text is the one public bug logs quote from DashScope for text-embedding-v4 ("Value error, dimension
 * for embedding v3 is invalid, its value shold be in [64, …, 3072]", typo and list DashScope's; for v3
 * the list stops at 1024), the `: parameters.dimension` suffix is what another public client matches
 * on, and the envelope is the batch-size refusal's above, which comes from the same validator. No
 * public page holds the whole body; replace it with a capture when one is made.
 */
function invalidDimensionRecording(accepted: string): string {
  return JSON.stringify({
    error: {
      message: `<400> InternalError.Algo.InvalidParameter: Value error, dimension for embedding v3 is invalid, its value shold be in ${accepted}: parameters.dimension`,
      type: 'InvalidParameter',
      param: null,
      code: 'InvalidParameter',
    },
    id: '5d1a6d3e-0c8f-9b0e-a2f4-6c3b1e7d9a40',
    request_id: '5d1a6d3e-0c8f-9b0e-a2f4-6c3b1e7d9a40',
  });
}
