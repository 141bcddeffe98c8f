/**
 * Contender `AI SDK`: the Vercel AI SDK (`ai`) serving a chat the way its docs do in v7: `POST` with the
 * `UIMessage`s, `convertToModelMessages`, `streamText` on a model, and `result.stream` written as a UI
 * message stream (SSE, `data: {json}` frames ending with `data: [DONE]`) by `toUIMessageStream` and
 * `pipeUIMessageStreamToResponse` onto a `node:http` response (v7's replacement for the deprecated
 * `result.pipeUIMessageStreamToResponse(res)`, the same pipeline). The model is the SDK's own `MockLanguageModelV4` streaming, with no delay, the
 * workload's answer deltas as `text-delta` parts, so this server sends the same 2,000 pieces of text as
 * the other contenders.
 *
 * `ai` needs Node ≥ 22: the parent runs this file with the Node 22 binary that `npm ci` put into this
 * folder (the npm package `node`), with the repository's tsx. Its dependencies live in this folder's
 * package.json only, never in the product's; the root `tsc` leaves this folder out (its packages may be
 * missing): `npx tsc -p bench/compare/ai-sdk` checks it once they are installed.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import {
  convertToModelMessages,
  pipeUIMessageStreamToResponse,
  streamText,
  toUIMessageStream,
  type UIMessage,
} from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import type { ClientRequest } from '../../server-bench-client.ts';
import { runChild, type Workload } from '../child-protocol.ts';

/** The answer block's texts, in order: what every stream of this contender sends as `text-delta`s. */
function answerDeltas(workload: Workload): string[] {
  const answer = workload.events.find((event) => event.type === 'block.started' && event.kind === 'answer');
  if (answer?.type !== 'block.started') throw new Error('the workload has no answer block');
  return workload.events.flatMap((event) =>
    event.type === 'block.delta' && event.blockId === answer.blockId ? [event.text] : [],
  );
}

/**
 * A model call's parts, new objects for every call as a provider parsing a real response makes them
 * (runstream's scripted model copies its parts per stream too).
 */
function modelParts(deltas: readonly string[]): LanguageModelV4StreamPart[] {
  const id = 'text-1';
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id, delta })),
    { type: 'text-end', id },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: deltas.length, text: deltas.length, reasoning: 0 },
      },
    },
  ];
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

let deltas: string[] | undefined;

const server = createServer((request, response) => {
  void (async () => {
    if (!deltas) throw new Error('no workload yet');
    const { messages } = JSON.parse(await readBody(request)) as { messages: UIMessage[] };
    // A model per request: the mock keeps every call's options, which would grow across batches.
    const model = new MockLanguageModelV4({
      doStream: { stream: convertArrayToReadableStream(modelParts(deltas)) },
    });
    const result = streamText({ model, messages: await convertToModelMessages(messages) });
    await pipeUIMessageStreamToResponse({ response, stream: toUIMessageStream({ stream: result.stream }) });
  })().catch((error: unknown) => {
    // The parent's check then fails this stream (status or frames), so an error cannot look fast.
    console.error(error);
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const body = JSON.stringify({
  messages: [{ id: 'user-1', role: 'user', parts: [{ type: 'text', text: '我的订单发货了吗？' }] }],
} satisfies { messages: UIMessage[] });

runChild(url, {
  workload(workload) {
    deltas = answerDeltas(workload);
  },
  prepare(n): ClientRequest[] {
    return Array.from({ length: n }, () => ({
      url: `${url}/api/chat`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }));
  },
  close() {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  },
});
