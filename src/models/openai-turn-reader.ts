import type { SseMessage } from '../protocol/index.ts';
import { describeEndpoint, isRecord, truncate } from '../shared/index.ts';
import { type ChatStreamPart, ModelError } from './chat-model.ts';
import type { TurnStreamReader } from './model-stream-request.ts';
import { OpenAiChunkParser, type OpenAiChunkParserOptions } from './openai-chunk-parser.ts';

/**
 * Reads one attempt's Chat Completions stream for the shared transport: `data:` frames of
 * `chat.completion.chunk` JSON, ended by `data: [DONE]`.
 *
 * Some servers close after the `finish_reason` (and usage) without `[DONE]`: that turn is whole.
 * A body that ends with neither was cut, and a truncated answer must never pass as complete.
 */
export class OpenAiTurnReader implements TurnStreamReader {
  readonly #parser: OpenAiChunkParser;
  readonly #endpoint: string;
  #complete = false;

  constructor(endpoint: string, parserOptions: OpenAiChunkParserOptions = {}) {
    this.#endpoint = endpoint;
    this.#parser = new OpenAiChunkParser(parserOptions);
  }

  get complete(): boolean {
    return this.#complete;
  }

  read(message: SseMessage): ChatStreamPart[] {
    const data = message.data.trim();
    if (data === '[DONE]') {
      this.#complete = true;
      return [];
    }
    if (data === '') return [];
    const json = parseFrame(data);
    // `event: error` with a bare error object (vLLM, some gateways) reads as `{error: …}`.
    const isErrorEvent = message.event === 'error' && !(isRecord(json) && 'error' in json);
    return this.#parser.push(isErrorEvent ? { error: json } : json);
  }

  end(): ChatStreamPart[] {
    if (!this.#complete && !this.#parser.finished) {
      throw new ModelError(
        'model_stream_broken',
        `the stream from POST ${describeEndpoint(this.#endpoint)} ended without [DONE] or a finish_reason`,
        // Harmless to retry while nothing was delivered; the transport never retries after that.
        { retryable: true },
      );
    }
    return this.#parser.done();
  }
}

function parseFrame(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    throw new ModelError('model_failed', `the provider sent a frame that is not JSON: ${truncate(data)}`, {
      cause: error,
    });
  }
}
