import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, createRunstreamClient, type RunstreamClient } from '../../src/client/index.ts';
import { DEMO_USER_ID } from '../../src/node/start-server.ts';
import type { Block, ConfirmBlock, MessageState, ToolBlock } from '../../src/protocol/index.ts';
import { agentFor, eventsOf, record, runstreamOf } from '../../src/server/ag-ui/test-support/ag-ui-agent.ts';
import {
  aiSdkClient,
  answered,
  texts,
  toolPart,
  type UiMessage,
  userMessage,
} from '../../src/server/ai-sdk/test-support/ai-sdk-client.ts';
import {
  startTestServer,
  TEST_TOKEN,
  type TestServer,
} from '../../src/server/test-support/start-test-server.ts';
import { openDatabase, SqliteRunStore } from '../../src/store/index.ts';

/**
 * 家修帮 end to end: the example folder served by the real server, over real HTTP, with the generic
 * offline model (no model configured, nothing scripted) and the folder's own MCP server as a child
 * process. A policy question is answered from the knowledge with citations; 帮我取消维修单 R-1001
 * loads the skill, asks for the cancel on the card agent.json labels, and only the approval makes the
 * MCP server cancel, which its own record (`calls.json`) shows; the same holds on the Responses,
 * AI SDK and AG-UI faces, each for a customer of its own (the MCP server keeps orders per user).
 */

const EXAMPLE = fileURLToPath(new URL('./', import.meta.url));
const CANCEL = '帮我取消维修单 R-1001';
const CANCELLED = '维修单 R-1001（洗衣机）已取消';

let testServer: TestServer | undefined;
let url: string;
let scratch: string;
let dataDir: string;
let client: RunstreamClient;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'homefix-e2e-'));
  dataDir = join(scratch, 'data');
  testServer = await startTestServer({
    // The example as it ships: its mcp.json hands HOMEFIX_DATA_DIR (when set) to its MCP server, so
    // the server's orders and its own record of calls live in this test's folder.
    agentDirectories: [EXAMPLE],
    env: { RUNSTREAM_RATE_LIMIT: '0', HOMEFIX_DATA_DIR: dataDir },
  });
  url = testServer.server.url;
  client = createRunstreamClient({ baseUrl: url, token: TEST_TOKEN, maxAttempts: 1 });
});

afterAll(async () => {
  await testServer?.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface CancelRecord {
  tool: string;
  orderId: string;
  userId: string;
  at: string;
}

/** The MCP server's own record of the cancellations it carried out. */
function cancellations(): CancelRecord[] {
  try {
    return JSON.parse(readFileSync(join(dataDir, 'calls.json'), 'utf8')) as CancelRecord[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** A customer of their own (their own seeded orders on the MCP server), as an operator adds one. */
async function newCustomer(name: string): Promise<{ id: string; token: string }> {
  const database = openDatabase((testServer as TestServer).databasePath);
  try {
    const store = new SqliteRunStore(database);
    const user = await store.createUser(name);
    return { id: user.id, token: await store.issueToken(user.id, 'homefix e2e') };
  } finally {
    database.close();
  }
}

/** The cancel card agent.json describes, for R-1001 (no reason given: 取消原因 is left out). */
function expectedCard() {
  const agent = JSON.parse(readFileSync(join(EXAMPLE, 'agent.json'), 'utf8')) as {
    tools: { cancel_repair: { card: { title: string; description: string } } };
  };
  const card = agent.tools.cancel_repair.card;
  return {
    title: card.title,
    description: card.description.replaceAll('{orderId}', 'R-1001'),
    details: [{ label: '维修单号', value: 'R-1001' }],
  };
}

/** What a person reads on a card names no transport and no argument. */
function expectPlainWords(card: unknown): void {
  const words = JSON.stringify(card);
  expect(words).not.toMatch(/mcp|homefix|orderId|reason|cancel_repair/i);
}

function toolBlocks(state: Pick<MessageState, 'blocks'>): ToolBlock[] {
  return state.blocks.filter((block): block is ToolBlock => block.kind === 'tool');
}

function confirmBlock(state: Pick<MessageState, 'blocks'>): ConfirmBlock | undefined {
  return state.blocks.find((block): block is ConfirmBlock => block.kind === 'confirm');
}

function answerText(blocks: readonly Block[]): string {
  return blocks
    .filter((block) => block.kind === 'answer')
    .map((block) => (block.kind === 'answer' ? block.text : ''))
    .join('');
}

/** The line a citation `knowledge/<file>.md#L<n>` points at, as the example's file has it. */
function citedLine(citation: string): string {
  const match = /^(knowledge\/[\w.-]+\.md)#L(\d+)$/.exec(citation);
  if (match === null) throw new Error(`not a knowledge citation: ${citation}`);
  const line = readFileSync(join(EXAMPLE, match[1] as string), 'utf8').split('\n')[Number(match[2]) - 1];
  if (line === undefined || line.trim() === '') throw new Error(`${citation} points at no text`);
  return line;
}

function citationsIn(text: string): string[] {
  return [...text.matchAll(/knowledge\/[\w.-]+\.md#L\d+/g)].map((match) => match[0]);
}

/** Letters and digits only: quotes compare across the answer's punctuation and list markers. */
function bare(text: string): string {
  return text.normalize('NFKC').replace(/[\p{P}\p{S}\s]/gu, '');
}

/**
 * Every citation points at a line of the knowledge, and the answer quotes those lines: what is left
 * once each cited line's clauses are taken out (punctuation aside) is the answer's own words.
 */
function ownWords(answer: string): string {
  const citations = citationsIn(answer);
  expect(citations.length).toBeGreaterThan(0);
  let rest = bare(answer.replace(/[（(](?:来源|source)[:：][^）)]*[）)]/g, ''));
  for (const citation of citations) {
    const clauses = citedLine(citation)
      .replace(/^\s*-\s+/, '')
      .split(/(?<=[。；！？])/)
      .map(bare)
      .filter((clause) => clause !== '')
      .sort((left, right) => right.length - left.length);
    for (const clause of clauses) rest = rest.replaceAll(clause, '');
  }
  return rest;
}

async function sourceOf(citation: string, conversationId: string) {
  const response = await fetch(
    `${url}/v1/knowledge/sources?path=${encodeURIComponent(citation)}&conversation_id=${conversationId}`,
    { headers: { authorization: `Bearer ${TEST_TOKEN}` } },
  );
  expect(response.status).toBe(200);
  return (await response.json()) as { path: string; title: string; text: string };
}

describe('家修帮 answers policy questions from its knowledge, with citations', () => {
  it('quotes the warranty clause for a repair that broke again, and the citation opens its document', async () => {
    const conversation = await client.createConversation({ agentId: 'homefix' });
    expect(conversation.agentId).toBe('homefix');
    const state = await client
      .sendMessage(conversation.id, { text: '修好的洗衣机一个月后又坏了，还在保修期内吗？' })
      .result();
    expect(state.status).toBe('completed');
    const [search, ...others] = toolBlocks(state);
    expect(others).toEqual([]);
    expect(search).toMatchObject({ name: 'search_knowledge', status: 'done' });

    const answer = answerText(state.blocks);
    // The clause that answers it (90 days for the same fault), first, with its line.
    const clause = citedLine('knowledge/warranty.md#L7').replace(/^- /, '');
    expect(clause).toContain('90 天');
    expect(answer).toContain(`${clause}（来源：knowledge/warranty.md#L7`);
    expect(ownWords(answer)).not.toMatch(/\d/);

    const source = await sourceOf('knowledge/warranty.md#L7', conversation.id);
    expect(source.path).toBe('knowledge/warranty.md');
    expect(source.title).toBe('家修帮维修保修政策');
    expect(source.text).toContain(clause);
    for (const citation of citationsIn(answer))
      expect((await sourceOf(citation, conversation.id)).text).toContain(
        citedLine(citation).replace(/^- /, ''),
      );
  });

  it('answers a question in English in English, quoting the clause as written', async () => {
    const conversation = await client.createConversation({ agentId: 'homefix' });
    const state = await client
      .sendMessage(conversation.id, { text: 'What does a home visit cost in the suburbs?' })
      .result();
    expect(state.status).toBe('completed');
    expect(toolBlocks(state).map((block) => block.name)).toEqual(['search_knowledge']);
    const answer = answerText(state.blocks);
    expect(answer).toContain('二区（郊区及远城区）：80 元/次。');
    expect(citationsIn(answer)).toContain('knowledge/service-fees.md#L14');
    // Once the quoted clauses are out, no Chinese is left: the agent's own words are English.
    const words = ownWords(answer);
    expect(words).toMatch(/[A-Za-z]{4,}/);
    expect(words).not.toMatch(/\p{Script=Han}/u);
    const reasoning = state.blocks.find((block) => block.kind === 'reasoning');
    expect(reasoning?.kind === 'reasoning' ? reasoning.text : '').not.toMatch(/[\u3000-\u303f\uff01-\uff1f]/);
  });
});

describe('帮我取消维修单 R-1001 on the chat API', () => {
  it('loads the skill, waits on the card, survives a refresh, and cancels once when approved', async () => {
    const conversation = await client.createConversation({ agentId: 'homefix' });
    const paused = await client.sendMessage(conversation.id, { text: CANCEL }).result();

    // The skill first (it unlocks cancel_repair), a look-up if the model wants one, then the write.
    expect(paused.status).toBe('paused');
    const tools = toolBlocks(paused);
    expect(tools.map((block) => block.name).join(',')).toMatch(/^load_skill,(query_repair,)?cancel_repair$/);
    expect(tools[0]).toMatchObject({ status: 'done', args: { name: 'repair-change' } });
    const cancel = tools.at(-1) as ToolBlock;
    expect(cancel).toMatchObject({
      title: '取消维修单',
      status: 'awaiting_confirmation',
      args: { orderId: 'R-1001' },
    });
    const card = confirmBlock(paused);
    expect(card).toMatchObject({ ...expectedCard(), status: 'pending', toolCallId: cancel.toolCallId });
    expectPlainWords({ title: card?.title, description: card?.description, details: card?.details });
    expect(paused.pause).toMatchObject({ reason: 'confirmation' });
    expect(cancellations()).toEqual([]);

    // A refresh: the conversation holds the same blocks, the card still waiting.
    const detail = await client.getConversation(conversation.id);
    const stored = detail.messages.at(-1);
    expect(stored?.role).toBe('assistant');
    expect(stored?.role === 'assistant' ? stored.message.blocks : []).toEqual(paused.blocks);
    expect(stored?.role === 'assistant' ? confirmBlock(stored.message)?.status : undefined).toBe('pending');

    // Nothing else is taken while the card waits.
    const blocked = await client
      .sendMessage(conversation.id, { text: '维修单 R-1001 现在什么状态？' })
      .result()
      .catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(ConflictError);
    expect((blocked as ConflictError).code).toBe('confirmation_pending');
    expect(cancellations()).toEqual([]);

    const runId = paused.runId as string;
    const done = await client.decide(runId, cancel.toolCallId, 'approve', { state: paused }).result();
    expect(done.status).toBe('completed');
    expect(cancellations()).toEqual([
      { tool: 'cancel_repair', orderId: 'R-1001', userId: DEMO_USER_ID, at: expect.any(String) },
    ]);
    const after = done.blocks.findIndex(
      (block) => block.kind === 'tool' && block.toolCallId === cancel.toolCallId,
    );
    expect(done.blocks[after]).toMatchObject({ status: 'done' });
    expect(confirmBlock(done)).toMatchObject({ status: 'approved' });
    const continuation = answerText(done.blocks.slice(after + 1));
    expect(continuation).toContain(CANCELLED);
    // The MCP server's own sentence, not its result's field names.
    expect(continuation).not.toMatch(/structuredContent|text：/);
    expect(continuation).toContain('免费');

    // The decision was taken once: another one is refused and nothing runs again.
    for (const decision of ['approve', 'reject'] as const) {
      const again = await client
        .decide(runId, cancel.toolCallId, decision)
        .result()
        .catch((error: unknown) => error);
      expect(again).toBeInstanceOf(ConflictError);
      expect((again as ConflictError).code).toBe('decision_conflict');
    }
    expect(cancellations()).toHaveLength(1);
  });
});

describe('the same card and approval on the other faces, each for a customer of its own', () => {
  it('Responses (the openai package, model "homefix"): an mcp_approval_request answered by mcp_approval_response', async () => {
    const customer = await newCustomer('Responses customer');
    const before = cancellations().length;
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: customer.token, maxRetries: 0 });
    const waiting = await openai.responses.create({ model: 'homefix', input: CANCEL });
    expect(waiting.status).toBe('completed');
    const calls = waiting.output.flatMap((item) => (item.type === 'mcp_call' ? [item.name] : []));
    expect(calls.join(',')).toMatch(/^load_skill(,query_repair)?$/);
    const request = waiting.output.at(-1);
    expect(request).toMatchObject({ type: 'mcp_approval_request', name: 'cancel_repair' });
    if (request?.type !== 'mcp_approval_request') throw new Error('no approval request');
    expect(JSON.parse(request.arguments)).toEqual({ orderId: 'R-1001' });

    // The card itself is not in OpenAI's item: the chat API shows it for the same run.
    const run = (await (
      await fetch(`${url}/v1/runs/${waiting.id}`, { headers: { authorization: `Bearer ${customer.token}` } })
    ).json()) as { conversationId: string; status: string };
    expect(run.status).toBe('paused');
    const asCustomer = createRunstreamClient({ baseUrl: url, token: customer.token, maxAttempts: 1 });
    const stored = (await asCustomer.getConversation(run.conversationId)).messages.at(-1);
    const card = stored?.role === 'assistant' ? confirmBlock(stored.message) : undefined;
    expect(card).toMatchObject({ ...expectedCard(), status: 'pending' });
    expect(cancellations()).toHaveLength(before);

    const approved = await openai.responses.create({
      model: 'homefix',
      input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
    });
    expect(approved.previous_response_id).toBe(waiting.id);
    expect(approved.output[0]).toMatchObject({
      type: 'mcp_call',
      name: 'cancel_repair',
      status: 'completed',
      approval_request_id: request.id,
      error: null,
    });
    expect(approved.output_text).toContain(CANCELLED);
    expect(cancellations().slice(before)).toEqual([
      { tool: 'cancel_repair', orderId: 'R-1001', userId: customer.id, at: expect.any(String) },
    ]);

    // The opposite answer to the same request is refused; the order is cancelled once.
    await expect(
      openai.responses.create({
        model: 'homefix',
        input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: false }],
      }),
    ).rejects.toMatchObject({ status: 409 });
    expect(cancellations()).toHaveLength(before + 1);
  });

  it('AI SDK (DefaultChatTransport, agentId "homefix"): a tool approval with the card as its descriptor', async () => {
    const customer = await newCustomer('AI SDK customer');
    const before = cancellations().length;
    const user = userMessage('u1', CANCEL);
    const send = (messages: unknown[], message?: UiMessage) =>
      aiSdkClient({
        op: 'send',
        baseUrl: url,
        token: customer.token,
        chatId: 'homefix-ai-sdk',
        messages,
        body: { agentId: 'homefix' },
        ...(message === undefined ? {} : { message }),
      });
    const first = await send([user]);
    expect(first.error).toBeUndefined();
    const waiting = first.message as UiMessage;
    expect(first.valid).toBe(true);
    expect(toolPart(waiting, 'load_skill')).toMatchObject({
      state: 'output-available',
      input: { name: 'repair-change' },
    });
    const cancel = toolPart(waiting, 'cancel_repair');
    expect(cancel).toMatchObject({
      state: 'approval-requested',
      input: { orderId: 'R-1001' },
      approval: { descriptor: expectedCard() },
    });
    expectPlainWords((cancel?.approval as { descriptor?: unknown } | undefined)?.descriptor ?? null);
    expect(cancellations()).toHaveLength(before);

    const approval = answered(waiting, true);
    const second = await send([user, approval], approval);
    expect(second.error).toBeUndefined();
    expect(second.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(toolPart(second.message, 'cancel_repair')).toMatchObject({
      state: 'output-available',
      approval: { approved: true },
    });
    expect(texts(second.message, 'text').join('')).toContain(CANCELLED);
    expect(cancellations().slice(before)).toEqual([
      { tool: 'cancel_repair', orderId: 'R-1001', userId: customer.id, at: expect.any(String) },
    ]);
  }, 60_000);

  it('AG-UI (HttpAgent, forwardedProps.agentId "homefix"): an interrupt resumed with the decision', async () => {
    const customer = await newCustomer('AG-UI customer');
    const before = cancellations().length;
    const agent = agentFor(url, 'homefix-ag-ui', customer.token);
    agent.addMessage({ id: 'user-1', role: 'user', content: CANCEL });
    const paused = await record(agent, { runId: 'homefix-1', forwardedProps: { agentId: 'homefix' } });
    expect(paused.error).toBeUndefined();
    const names = eventsOf(paused, 'TOOL_CALL_START').map((event) => event.toolCallName);
    expect(names.join(',')).toMatch(/^load_skill,(query_repair,)?cancel_repair$/);
    const [finished] = eventsOf(paused, 'RUN_FINISHED');
    const outcome = finished?.outcome as { type: string; interrupts: Record<string, unknown>[] };
    expect(outcome.type).toBe('interrupt');
    expect(outcome.interrupts).toHaveLength(1);
    const interrupt = outcome.interrupts[0] as { id: string; message: string; metadata: unknown };
    const card = expectedCard();
    expect(interrupt.message).toBe(`${card.title} · ${card.description}`);
    expect(interrupt.metadata).toMatchObject({
      runstream: { toolName: 'cancel_repair', args: { orderId: 'R-1001' }, ...card },
    });
    const shown = (interrupt.metadata as { runstream: Record<string, unknown> }).runstream;
    expectPlainWords([interrupt.message, shown.title, shown.description, shown.details]);
    expect(cancellations()).toHaveLength(before);

    const resumed = await record(agent, {
      runId: 'homefix-2',
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'approve' } }],
    });
    expect(resumed.error).toBeUndefined();
    expect(eventsOf(resumed, 'RUN_FINISHED')[0]).toMatchObject({ outcome: { type: 'success' } });
    const [result] = eventsOf(resumed, 'TOOL_CALL_RESULT');
    expect(result).toMatchObject({ toolCallId: interrupt.id });
    const said = eventsOf(resumed, 'TEXT_MESSAGE_CONTENT')
      .map((event) => event.delta)
      .join('');
    expect(said).toContain(CANCELLED);
    expect(runstreamOf(resumed).runId).toBe(runstreamOf(paused).runId);
    expect(cancellations().slice(before)).toEqual([
      { tool: 'cancel_repair', orderId: 'R-1001', userId: customer.id, at: expect.any(String) },
    ]);
  });
});
