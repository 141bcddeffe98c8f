import {
  DASHSCOPE_EMBEDDING_MODELS,
  DASHSCOPE_INVALID_KEY_BODY,
  dashScopeEmbeddingsBody,
} from './dashscope-embedding-recordings.ts';
import {
  type FakeEmbeddingAnswer,
  type FakeEmbeddingServer,
  type ReceivedEmbeddingRequest,
  startFakeEmbeddingServer,
  vectorFor,
} from './fake-embedding-server.ts';

export interface DashScopeEmbeddingServer extends FakeEmbeddingServer {
  /** `http://127.0.0.1:<port>/compatible-mode/v1`, DashScope's OpenAI-compatible root. */
  baseUrl: string;
}

const ENDPOINT = '/compatible-mode/v1/embeddings';

/**
 * A real HTTP server that answers like DashScope's compatible-mode embeddings endpoint: the
 * recorded bodies of `dashscope-embedding-recordings.ts`, each exactly where DashScope would send it
 * (a wrong key, too many rows for the model, a `dimensions` value the model refuses), and otherwise
 * the documented success shape with vectors of the length DashScope would return.
 */
export async function startDashScopeEmbeddingServer(options: {
  apiKey: string;
}): Promise<DashScopeEmbeddingServer> {
  const server = await startFakeEmbeddingServer({
    answer: (request, requestNumber) => answer(request, requestNumber, options.apiKey),
  });
  return { ...server, baseUrl: `${new URL(server.baseUrl).origin}/compatible-mode/v1` };
}

function answer(
  request: ReceivedEmbeddingRequest,
  requestNumber: number,
  apiKey: string,
): FakeEmbeddingAnswer {
  // Not recordings: guards that make a test aimed at the wrong route or model fail loudly.
  if (request.method !== 'POST' || request.path !== ENDPOINT) {
    return { status: 404, body: `replay: no route ${request.method} ${request.path}` };
  }
  if (request.authorization !== `Bearer ${apiKey}`) return { status: 401, body: DASHSCOPE_INVALID_KEY_BODY };
  const rules = DASHSCOPE_EMBEDDING_MODELS[request.body.model];
  if (rules === undefined) return { status: 400, body: `replay: no recordings for ${request.body.model}` };
  const texts = request.body.input;
  if (texts.length > rules.maxRows) return { status: 400, body: rules.batchTooLargeBody };
  const requested = request.body.dimensions;
  let length = rules.defaultDimensions;
  if (requested !== undefined && rules.dimensions !== 'ignored') {
    if (!rules.dimensions.accepted.includes(requested)) {
      return { status: 400, body: rules.dimensions.refusalBody };
    }
    length = requested;
  }
  return {
    status: 200,
    body: dashScopeEmbeddingsBody({
      model: request.body.model,
      vectors: texts.map((text) => vectorFor(text, length)),
      // A stand-in count: the tests read the shape, not DashScope's tokenizer.
      promptTokens: texts.reduce((sum, text) => sum + text.length, 0),
      id: `f62c2ae7-0906-9758-ab34-${String(requestNumber).padStart(12, '0')}`,
    }),
  };
}
