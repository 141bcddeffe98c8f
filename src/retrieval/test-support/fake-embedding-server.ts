import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedEmbeddingRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: { model: string; input: string[]; dimensions?: number; encoding_format?: string };
}

/** What the fake answers to one request: a status and body, a stall (no answer), or a cut socket. */
export type FakeEmbeddingAnswer =
  | { status: number; headers?: Record<string, string>; body: unknown }
  | { stall: true }
  | { dropConnection: true };

export interface FakeEmbeddingServerOptions {
  /** Vector length when the request has no `dimensions`. */
  defaultDimensions?: number;
  /** Return the data items in a shuffled order, as servers may. */
  shuffle?: boolean;
  /** Per request (1-based): answer this instead of the embeddings; `undefined` embeds normally. */
  answer?: (request: ReceivedEmbeddingRequest, requestNumber: number) => FakeEmbeddingAnswer | undefined;
  /** Per request: the vector length to return, e.g. to play a server that ignores `dimensions`. */
  vectorLength?: (request: ReceivedEmbeddingRequest, requestNumber: number) => number;
}

export interface FakeEmbeddingServer {
  baseUrl: string;
  requests: ReceivedEmbeddingRequest[];
  close(): Promise<void>;
}

/** The vector the fake returns for a text: derived from the text alone, so tests can predict it. */
export function vectorFor(text: string, length: number): number[] {
  let hash = 0;
  for (const character of text) hash = (hash * 31 + (character.codePointAt(0) ?? 0)) % 10_007;
  return Array.from({ length }, (_, position) => (position === 0 ? hash : text.length + position));
}

/** A deterministic permutation, so "shuffled" is the same on every run. */
function shuffled<Item>(items: Item[]): Item[] {
  const copy = [...items];
  let seed = 42;
  for (let position = copy.length - 1; position > 0; position--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const other = seed % (position + 1);
    [copy[position], copy[other]] = [copy[other] as Item, copy[position] as Item];
  }
  return copy;
}

/**
 * A real HTTP server speaking OpenAI's `POST /v1/embeddings` wire format, with faults injected per
 * request.
 */
export async function startFakeEmbeddingServer(
  options: FakeEmbeddingServerOptions = {},
): Promise<FakeEmbeddingServer> {
  const requests: ReceivedEmbeddingRequest[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const received: ReceivedEmbeddingRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      authorization: request.headers.authorization,
      contentType: request.headers['content-type'],
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
    };
    requests.push(received);
    const requestNumber = requests.length;
    const answer = options.answer?.(received, requestNumber) ?? embeddingsAnswer(received, requestNumber);
    if ('stall' in answer) return;
    if ('dropConnection' in answer) {
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  });

  const embeddingsAnswer = (
    received: ReceivedEmbeddingRequest,
    requestNumber: number,
  ): FakeEmbeddingAnswer => {
    if (received.method !== 'POST' || received.path !== '/v1/embeddings') {
      return { status: 404, body: { error: { message: `no route ${received.path}`, type: 'not_found' } } };
    }
    const length =
      options.vectorLength?.(received, requestNumber) ??
      received.body.dimensions ??
      options.defaultDimensions ??
      8;
    const data = received.body.input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: vectorFor(text, length),
    }));
    const tokens = received.body.input.reduce((sum, text) => sum + text.length, 0);
    return {
      status: 200,
      body: {
        object: 'list',
        data: options.shuffle ? shuffled(data) : data,
        model: received.body.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
    };
  };

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
