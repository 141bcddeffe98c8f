// A TypeScript consumer of every entry, type-checked (`tsc --noEmit`, strict, `module: nodenext`)
// against the .d.ts the package ships. It is never run. The `@ts-expect-error` lines fail the check
// when a type comes out as `any` (an import a declaration file cannot resolve, say), since the error
// they expect then goes missing.

import { createElement, type ReactElement } from 'react';
import { type Agent, createRunstream, defineAgent, type Runstream, type ToolContext, tool } from 'runstream';
import {
  ConflictError,
  createRunstreamClient,
  type RunStreamUpdate,
  type RunstreamClient,
} from 'runstream/client';
import { type McpServerConfig, openMcpTools, parseMcpConfig } from 'runstream/mcp';
import { type NodeContext, type RunningServer, serve, sqliteStore, toNodeHandler } from 'runstream/node';
import { type PostgresStore, postgresStore } from 'runstream/postgres';
import { createMessageState, type MessageState, type RunEvent, reduce } from 'runstream/protocol';
import {
  AssistantMessage,
  ConfirmCard,
  defaultClassNames,
  type RunstreamChat,
  useRunstreamChat,
} from 'runstream/react';
import { type RedisBus, redisBus } from 'runstream/redis';
import { type Embedder, HashedNgramEmbedder, normalizeText } from 'runstream/retrieval';
import { describeRunStoreConformance, scriptedModel } from 'runstream/testing';
import { z } from 'zod';

// runstream: a tool's input is typed from its zod schema.
const cancelOrder = tool({
  name: 'cancel_order',
  description: 'Cancel an order that has not shipped.',
  inputSchema: z.object({ orderId: z.string() }),
  needsApproval: (input) => input.orderId.startsWith('A'),
  execute: ({ orderId }, context: ToolContext) => ({ cancelled: orderId, by: context.userId }),
});
tool({
  name: 'bad_tool',
  description: 'Reads a field its schema does not have.',
  inputSchema: z.object({ orderId: z.string() }),
  // @ts-expect-error: `serial` is not in the input schema
  execute: ({ serial }) => serial,
});
const trackOrder = tool<{ orderId: string }>({
  name: 'track_order',
  description: 'Where an order is.',
  inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  readOnly: true,
  execute: (input) => input.orderId.length,
});
const agent: Agent = defineAgent({
  id: 'support',
  name: 'Support',
  instructions: 'You help shoppers.',
  tools: [cancelOrder, trackOrder],
  model: scriptedModel(['Hello!', { toolCalls: [{ name: 'cancel_order', arguments: { orderId: 'A1' } }] }]),
});

// runstream + runstream/node: the server.
async function startServer(): Promise<RunningServer> {
  const store = sqliteStore('data/runstream.db');
  const runstream: Runstream<NodeContext> = createRunstream<NodeContext>({
    agents: [agent],
    store,
    basePath: '/support',
    authenticate: (request, context) =>
      context.incoming.headers['x-user'] === undefined ? null : { userId: request.url },
  });
  const handler = toNodeHandler(runstream);
  handler satisfies (request: NodeContext['incoming'], response: NodeContext['outgoing']) => Promise<void>;
  const response: Promise<Response> = runstream.fetch(new Request('http://shop.test/support/health'));
  void response;
  // @ts-expect-error: the port is a number
  await serve(runstream, { port: '8787' });
  return serve(runstream, { port: 0, host: '127.0.0.1' });
}

// runstream/postgres and runstream/redis: the shared store and bus.
async function startShared(): Promise<void> {
  const store: PostgresStore = await postgresStore('postgres://localhost/runstream');
  const bus: RedisBus = await redisBus('redis://localhost:6379', { keyPrefix: 'shop:' });
  const runstream = createRunstream({ agents: [agent], store, bus });
  await runstream.ready;
  await Promise.all([runstream.close(), store.close(), bus.close()]);
}

// runstream/mcp: tools from MCP servers.
async function mcpTools(): Promise<number> {
  const text = JSON.stringify({ mcpServers: { files: { command: 'npx', args: ['files-server'] } } });
  const config = parseMcpConfig(text, 'mcp.json', { HOME: '/home/shop' });
  const first: McpServerConfig | undefined = [...config.values()][0];
  void first;
  const source = await openMcpTools(config, { log: () => undefined, language: 'en' });
  await source.close();
  return source.tools.length;
}

// runstream/retrieval: an offline embedder and the analysers.
async function embed(text: string): Promise<Float32Array | undefined> {
  const embedder: Embedder = new HashedNgramEmbedder();
  const [vector] = await embedder.embed([normalizeText(text)]);
  return vector;
}

// runstream/client and runstream/protocol: stream, approve once, stop.
async function approve(client: RunstreamClient, conversationId: string): Promise<MessageState> {
  const stream = client.sendMessage(conversationId, { text: 'Cancel order A1' });
  for await (const update of stream) {
    const typed: RunStreamUpdate = update;
    void typed.event.seq;
  }
  const card = stream.state.blocks.find((block) => block.kind === 'confirm');
  if (card === undefined || stream.state.runId === null) return stream.state;
  // @ts-expect-error: a decision is 'approve' or 'reject'
  client.decide(stream.state.runId, card.toolCallId, 'maybe');
  try {
    return await client.decide(stream.state.runId, card.toolCallId, 'approve').result();
  } catch (error) {
    if (error instanceof ConflictError) await client.cancel(stream.state.runId, 'customer_left');
    throw error;
  }
}
function replay(events: readonly RunEvent[]): MessageState {
  return events.reduce(reduce, createMessageState());
}

// runstream/react: the hook and the blocks.
function Chat({ conversationId }: { conversationId: string | null }): ReactElement {
  const chat: RunstreamChat = useRunstreamChat({ baseUrl: '/support', token: 'shopper-1', conversationId });
  const card = chat.pendingConfirmations[0];
  return createElement(
    'section',
    { className: defaultClassNames.message },
    ...chat.messages.map((message) =>
      message.kind === 'user'
        ? createElement('p', { key: message.key }, message.text)
        : createElement(AssistantMessage, { key: message.key, state: message.state, actions: chat.actions }),
    ),
    card === undefined
      ? null
      : createElement(ConfirmCard, {
          block: card,
          decide: (id, decision) => void (decision === 'approve' ? chat.approve(id) : chat.reject(id)),
        }),
  );
}

// runstream/testing: the conformance suites, typed.
const suite: typeof describeRunStoreConformance = describeRunStoreConformance;

export const uses = [
  startServer,
  startShared,
  mcpTools,
  embed,
  approve,
  replay,
  Chat,
  suite,
  createRunstreamClient({ baseUrl: 'https://shop.example/support' }),
];
