import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRerankServer {
  /** The server's URL at `path`, e.g. `/v1/rerank`. */
  url(path: string): string;
  requests: ReceivedRerankRequest[];
  close(): Promise<void>;
}

export interface ReceivedRerankRequest {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export type FakeRerankAnswer = { status: number; body: unknown } | undefined;

export interface FakeRerankServerOptions {
  /** Per request (1-based): answer this instead of the scores; `undefined` scores normally. */
  answer?: (request: ReceivedRerankRequest, requestNumber: number) => FakeRerankAnswer;
  /** A document's relevance. Default: the share of the query's characters it holds. */
  score?: (query: string, document: string) => number;
}

function sharedCharacters(query: string, document: string): number {
  const characters = [...query];
  return characters.filter((character) => document.includes(character)).length / characters.length;
}

/**
 * A rerank server as Cohere, Jina and vLLM answer (`{results: [{index, relevance_score}]}`, best
 * first, `top_n` honoured), or as DashScope's text-rerank service does (the same wrapped in
 * `output`, with `usage` and `request_id`). Scores are `options.score`'s, so tests can predict the
 * order.
 */
export async function startFakeRerankServer(
  options: FakeRerankServerOptions = {},
): Promise<FakeRerankServer> {
  const score = options.score ?? sharedCharacters;
  const requests: ReceivedRerankRequest[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const received: ReceivedRerankRequest = {
      path: request.url ?? '',
      authorization: request.headers.authorization,
      body: JSON.parse(raw) as Record<string, unknown>,
    };
    requests.push(received);
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const override = options.answer?.(received, requests.length);
    if (override !== undefined) return send(override.status, override.body);
    const dashscope = received.path.includes('/services/rerank/');
    const input = (dashscope ? received.body.input : received.body) as { query: string; documents: string[] };
    const topN = Number((dashscope ? (received.body.parameters as { top_n?: number }) : received.body).top_n);
    const results = input.documents
      .map((document, index) => ({ index, relevance_score: score(input.query, document) }))
      .sort((left, right) => right.relevance_score - left.relevance_score)
      .slice(0, Number.isFinite(topN) ? topN : undefined);
    if (dashscope) send(200, { output: { results }, usage: { total_tokens: 42 }, request_id: 'req-1' });
    else send(200, { id: 'rerank-1', model: received.body.model, results, usage: { total_tokens: 42 } });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
