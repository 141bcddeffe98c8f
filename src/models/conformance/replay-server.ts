import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkMessagesRequest,
  type IssuedThinking,
  noThinkingIssued,
  thinkingIssuedBy,
} from './anthropic-messages-rules.ts';
import { type ChatCompletionsProvider, checkChatCompletionsRequest } from './chat-completions-rules.ts';
import { checkDeepSeekMessagesRequest } from './deepseek-messages-rules.ts';
import type { ProviderRefusal } from './provider-refusal.ts';

/**
 * A real `node:http` server on an ephemeral port that plays one scenario's recorded provider
 * responses, in order, to an adapter under test: `POST …/chat/completions` for the OpenAI-compatible
 * providers, `POST …/v1/messages` for the Anthropic Messages ones (Claude, and DeepSeek's
 * Anthropic-format endpoint as `deepseek-anthropic`). Every request is kept and checked against the
 * provider's documented rules first; a request that breaks one gets the provider's own refusal
 * (status and body) instead of the next recording, exactly where the provider would refuse it.
 */

/** The providers replayed over the Anthropic Messages protocol. */
export type MessagesProvider = 'anthropic' | 'deepseek-anthropic';

export type ReplayProvider = ChatCompletionsProvider | MessagesProvider;

export function isMessagesProvider(provider: ReplayProvider): provider is MessagesProvider {
  return provider === 'anthropic' || provider === 'deepseek-anthropic';
}

export interface RecordedResponse {
  /** The response body as the provider streamed it: SSE frames, byte for byte. */
  body: string;
  /** Where it came from (a file name), for failure messages. */
  name?: string;
  /** Default `text/event-stream; charset=utf-8`. */
  contentType?: string;
}

export interface ReplayServerOptions {
  provider: ReplayProvider;
  /** One per request the scenario expects, in order. */
  responses: readonly RecordedResponse[];
}

export interface ReplayedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body text. */
  body: string;
  /** The parsed body, `undefined` when it was not JSON. */
  json: unknown;
  /** The recording served, or the refusal answered instead. */
  answer: { served: string } | { refused: ProviderRefusal };
}

export interface ReplayServer {
  /** The OpenAI-compatible API root, `http://127.0.0.1:<port>/v1` (`/chat/completions` is appended). */
  baseUrl: string;
  /** The bare origin, `http://127.0.0.1:<port>`: a Messages base URL (`/v1/messages` is appended). */
  origin: string;
  requests: ReplayedRequest[];
  /** The refusals answered so far. */
  refusals(): ProviderRefusal[];
  close(): Promise<void>;
}

export async function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  const requests: ReplayedRequest[] = [];
  const issued = noThinkingIssued();
  let served = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(request.url ?? '/', 'http://replay').pathname;
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const refusal =
        routeRefusal(options.provider, request.method ?? '', path) ??
        checkRequest(options.provider, request.headers, json, issued);
      const base = { method: request.method ?? '', path, headers: request.headers, body, json };
      if (refusal !== undefined) {
        requests.push({ ...base, answer: { refused: refusal } });
        writeJson(response, refusal.status, refusal.body);
        return;
      }
      const recorded = options.responses[served];
      if (recorded === undefined) {
        const exhausted: ProviderRefusal = {
          // 418: no adapter retries it, so a surplus request fails the run at once and visibly.
          status: 418,
          rule: 'replay.exhausted',
          body: {
            error: { message: `replay: no recorded response left for request ${requests.length + 1}` },
          },
        };
        requests.push({ ...base, answer: { refused: exhausted } });
        writeJson(response, exhausted.status, exhausted.body);
        return;
      }
      served++;
      if (isMessagesProvider(options.provider)) thinkingIssuedBy(recorded.body, issued);
      requests.push({ ...base, answer: { served: recorded.name ?? `response ${served}` } });
      writeStream(response, recorded);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    requests,
    refusals: () =>
      requests.flatMap((replayed) => ('refused' in replayed.answer ? [replayed.answer.refused] : [])),
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

function checkRequest(
  provider: ReplayProvider,
  headers: IncomingHttpHeaders,
  json: unknown,
  issued: IssuedThinking,
): ProviderRefusal | undefined {
  if (json === undefined) {
    return { status: 400, rule: 'replay.json', body: { error: { message: 'the body is not JSON' } } };
  }
  switch (provider) {
    case 'anthropic':
      return checkMessagesRequest(headers, json, issued);
    case 'deepseek-anthropic':
      return checkDeepSeekMessagesRequest(headers, json);
    default:
      return checkChatCompletionsRequest(provider, json);
  }
}

function routeRefusal(provider: ReplayProvider, method: string, path: string): ProviderRefusal | undefined {
  const route = isMessagesProvider(provider) ? '/v1/messages' : '/chat/completions';
  if (method === 'POST' && path.endsWith(route)) return undefined;
  return {
    status: 404,
    rule: 'replay.route',
    body: {
      error: { message: `replay of ${provider} has no route ${method} ${path} (expected POST …${route})` },
    },
  };
}

/** Each SSE frame in its own write, so frames reach the adapter in separate reads, as on the wire. */
function writeStream(response: ServerResponse, recorded: RecordedResponse): void {
  response.writeHead(200, {
    'content-type': recorded.contentType ?? 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  response.flushHeaders();
  for (const frame of recorded.body.split(/(?<=\n\n)/)) response.write(frame);
  response.end();
}

function writeJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
