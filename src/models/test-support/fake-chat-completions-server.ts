import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * A real `node:http` server on an ephemeral port that answers `POST /v1/chat/completions` the way
 * OpenAI-compatible providers do: `chat.completion.chunk` frames over SSE, error bodies, throttling,
 * cut connections. Each request is answered by the next scripted responder, in order.
 */

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The raw body text, to compare retries byte for byte. */
  body: string;
  /** Resolves when the response's connection closes (finished, destroyed, or dropped by the client). */
  closed: Promise<void>;
}

export interface ResponderContext {
  request: IncomingMessage;
  response: ServerResponse;
  recorded: RecordedRequest;
}

export type Responder = (context: ResponderContext) => void | Promise<void>;

export interface FakeChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1`, the `baseUrl` to give the adapter. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeChatCompletionsServer(
  responders: readonly Responder[],
): Promise<FakeChatCompletionsServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        closed: new Promise((resolve) => response.on('close', () => resolve())),
      };
      requests.push(recorded);
      const responder = responders[requests.length - 1];
      if (responder === undefined) {
        // 418: not retried by the adapter, so a surplus request shows up as a failure at once.
        writeJson(response, 418, {
          error: { message: `no scripted response for request ${requests.length}` },
        });
        return;
      }
      Promise.resolve(responder({ request, response, recorded })).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    // Idempotent: a test may close early (an unreachable server) before the fixture does.
    close: () =>
      new Promise((resolve, reject) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export const CHUNK_ID = 'chatcmpl-9xTestChunkId';
const CREATED = 1_726_000_000;
const MODEL = 'fake-model';

/** One `data:` frame of a `chat.completion.chunk` with a single choice. */
export function chunkFrame(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return frame({
    id: CHUNK_ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
}

/** The final usage chunk sent with `stream_options.include_usage`: no choices, only usage. */
export function usageFrame(promptTokens: number, completionTokens: number): string {
  return frame({
    id: CHUNK_ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    system_fingerprint: 'fp_fake',
    choices: [],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  });
}

export function frame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

export const DONE_FRAME = 'data: [DONE]\n\n';

export interface SseOptions {
  /** Pause between writes, so each write is likely its own TCP segment. Default 2 ms. */
  delayMs?: number;
  /** After the last write: `end` (default), `destroy` the socket, or `hang` (keep it open). */
  ending?: 'end' | 'destroy' | 'hang';
}

/** A 200 event stream writing each item with its own `res.write`: strings or raw bytes. */
export function sse(writes: readonly (string | Uint8Array)[], options: SseOptions = {}): Responder {
  return async ({ response }) => {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    response.flushHeaders();
    for (const write of writes) {
      if (response.destroyed) return;
      response.write(write);
      await delay(options.delayMs ?? 2);
    }
    const ending = options.ending ?? 'end';
    if (ending === 'end') response.end();
    if (ending === 'destroy') response.socket?.destroy();
  };
}

/** An error answer: `status` with a JSON body and optional headers (`retry-after`). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return ({ response }) => writeJson(response, status, body, headers);
}

function writeJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/**
 * A frame as raw bytes in two writes, cut inside the first multi-byte character: the decoder must
 * join the halves of a UTF-8 sequence that arrive in different reads.
 */
export function splitInsideCharacter(text: string): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const firstMultiByte = bytes.findIndex((byte) => byte >= 0x80);
  if (firstMultiByte === -1) return [bytes];
  return [bytes.subarray(0, firstMultiByte + 1), bytes.subarray(firstMultiByte + 1)];
}
