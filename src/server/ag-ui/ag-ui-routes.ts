import { createHash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { PendingCall } from '../../protocol/index.ts';
import type { RunLog, RunManager } from '../../runtime/index.ts';
import type { RunStore, User } from '../../store/index.ts';
import { agentForThread, conversationForThread, dialectConversationId } from '../dialect-conversation.ts';
import { HttpError } from '../http-error.ts';
import { bodyOf } from '../node-response-of.ts';
import { readJsonBody } from '../read-json-body.ts';
import { type StreamLogOptions, streamLogOptionsOf } from '../stream-run.ts';
import { startRunWithin, type UserLimits } from '../user-limits.ts';
import {
  type AgUiStreamContext,
  agUiFace,
  encodeAgUiEvents,
  runStartedEvent,
  terminalEvents,
} from './ag-ui-face.ts';
import {
  AG_UI_MAX_BODY_BYTES,
  type AgUiMessage,
  contentText,
  decisionOf,
  type RunAgentInput,
  RunAgentInputSchema,
  requestedAgentOf,
} from './ag-ui-request.ts';
import { reconnectAgUi, streamAgUi } from './stream-ag-ui.ts';

export interface AgUiRoutesOptions {
  store: RunStore;
  runs: RunManager;
  heartbeatMs?: number | undefined;
  /** Per-user limits: an AG-UI run start is a run start, under the same cap on running runs. */
  limits?: UserLimits | undefined;
}

type Env = { Variables: { user: User; traceId: string } };

/** The dialect name in thread-derived conversation ids and on the runs (`face`). */
const DIALECT = 'ag-ui';
/** `clientMessageId` is at most this long (the chat API's limit); longer AG-UI ids are kept hashed. */
const MAX_CLIENT_MESSAGE_ID = 100;

/**
 * The `clientMessageId` an AG-UI message id is stored as: itself, or a digest of an id longer than the
 * store keeps, so a long id still tells a message already answered from a new one.
 */
function storedMessageId(id: string): string {
  return id.length <= MAX_CLIENT_MESSAGE_ID
    ? id
    : `sha256:${createHash('sha256').update(id).digest('hex').slice(0, 48)}`;
}

/**
 * AG-UI (CopilotKit's Agent-User Interaction protocol, docs/integrations/ag-ui.md): `POST /v1/ag-ui`
 * takes a `RunAgentInput` and answers with an AG-UI event stream, `GET /v1/ag-ui/runs/{id}/events`
 * reconnects. Each AG-UI thread is one conversation of the caller, of the agent its first input
 * named (`forwardedProps.agentId`, else the default); each request is one stretch of a run of the same
 * RunManager and log as every other face: a new user message starts a run, `resume` entries decide
 * its paused confirmations, trailing tool messages answer its frontend tool calls.
 */
export function registerAgUiRoutes(app: Hono<Env>, options: AgUiRoutesOptions): void {
  const { store, runs } = options;
  const streamOptions = (context: Context<Env>): StreamLogOptions =>
    streamLogOptionsOf(context, options.heartbeatMs);

  /**
   * The caller's thread's paused run and what it waits for: `undefined` when the thread has none
   * waiting, `missing` when the caller has no such thread.
   */
  async function waitingRunOf(
    user: User,
    threadId: string,
  ): Promise<{ runId: string; log: RunLog; reason: string; pending: PendingCall[] } | 'missing' | undefined> {
    const conversation = await store.getConversation(dialectConversationId(user.id, DIALECT, threadId));
    if (conversation === undefined || conversation.userId !== user.id) return 'missing';
    const active = await store.findActiveRun(conversation.id);
    if (active?.status !== 'paused') return undefined;
    const log = await runs.logOf(user.id, active.id);
    const pause = log.state.pause;
    return pause === null
      ? undefined
      : { runId: active.id, log, reason: pause.reason, pending: pause.pending };
  }

  /** The run of the caller's thread that waits for `reason`, with what it waits for. */
  async function pausedRunOf(
    user: User,
    threadId: string,
    reason: 'confirmation' | 'tool_result',
  ): Promise<{ runId: string; log: RunLog; pending: PendingCall[] }> {
    const waiting = await waitingRunOf(user, threadId);
    if (waiting === 'missing') throw new HttpError(404, 'not_found', 'no such thread');
    if (waiting?.reason !== reason)
      throw new HttpError(
        409,
        reason === 'confirmation' ? 'not_paused' : 'not_waiting_for_tool_results',
        reason === 'confirmation'
          ? 'nothing on this thread waits for a decision'
          : 'nothing on this thread waits for tool results',
      );
    return waiting;
  }

  /**
   * Resume entries that only cancel (AG-UI's way past interrupts the person will not answer, to go on
   * with the thread): with a new user message last, the paused run is stopped and the message starts
   * the next one; entries for interrupts that no longer wait (the run was stopped or decided
   * elsewhere) are moot. `true` when the request is to be handled as if it had no resume entries.
   */
  async function cancelsOnly(
    user: User,
    input: RunAgentInput,
    agentId: string,
    context: Context<Env>,
  ): Promise<boolean> {
    const entries = input.resume ?? [];
    if (!entries.every((entry) => entry.status === 'cancelled')) return false;
    const waiting = await waitingRunOf(user, input.threadId);
    if (waiting === 'missing' || waiting === undefined || waiting.reason !== 'confirmation') return true;
    const named = (entry: { interruptId: string }) =>
      waiting.pending.some((call) => call.toolCallId === entry.interruptId);
    // Entries for other interrupts go the usual way, to be refused with the open ones named.
    const last = input.messages.at(-1);
    if (last?.role !== 'user' || !entries.every(named)) return false;
    // The message the paused run answers is not a new one: the cancellation is then a rejection.
    const conversationId = dialectConversationId(user.id, DIALECT, input.threadId);
    const seen = await store.listMessages(conversationId);
    if (
      seen.some((message) => message.role === 'user' && message.clientMessageId === storedMessageId(last.id))
    )
      return false;
    // The new message is checked before the paused run is stopped for it: a refused one loses nothing.
    prepareStart(input, agentId, context);
    await runs.cancel(user.id, waiting.runId, 'interrupt_cancelled');
    return true;
  }

  /** `resume` entries: the decisions on the thread's paused confirmations, then the continuation. */
  async function resume(user: User, input: RunAgentInput, context: Context<Env>): Promise<Response> {
    const { runId, log, pending } = await pausedRunOf(user, input.threadId, 'confirmation');
    const decisions = (input.resume ?? []).map((entry) => {
      const decision = decisionOf(entry);
      if ('invalid' in decision) throw new HttpError(400, 'invalid_request', decision.invalid);
      if (!pending.some((call) => call.toolCallId === entry.interruptId))
        throw new HttpError(400, 'invalid_request', `resume: no open interrupt ${entry.interruptId}`, {
          open: pending.map((call) => call.toolCallId),
        });
      return { toolCallId: entry.interruptId, ...decision };
    });
    const missing = pending.filter(
      (call) => !decisions.some((entry) => entry.toolCallId === call.toolCallId),
    );
    // All or nothing, as AG-UI asks of a resume: a half-answered pause would leave nothing to stream.
    if (missing.length > 0)
      throw new HttpError(400, 'invalid_request', 'resume: answer every open interrupt', {
        missing: missing.map((call) => call.toolCallId),
      });
    // The face begins here when this copy of the log is new (a restart): it then knows the pause.
    agUiFace(log);
    const before = log.lastSeq;
    let resumed = log;
    for (const entry of decisions)
      resumed = await runs.decide(user.id, runId, entry.toolCallId, entry.decision, entry.note);
    return streamAgUi(resumed, before, streamContext(input), streamOptions(context));
  }

  /** Trailing tool messages: the client's results of its tools, then the continuation. */
  async function toolResults(user: User, input: RunAgentInput, context: Context<Env>): Promise<Response> {
    const { runId, log, pending } = await pausedRunOf(user, input.threadId, 'tool_result');
    const trailing: Extract<AgUiMessage, { role: 'tool' }>[] = [];
    for (let index = input.messages.length - 1; index >= 0; index -= 1) {
      const message = input.messages[index];
      if (message?.role !== 'tool') break;
      trailing.unshift(message);
    }
    const answers = trailing.filter((message) =>
      pending.some((call) => call.toolCallId === message.toolCallId),
    );
    if (answers.length === 0)
      throw new HttpError(400, 'invalid_request', 'no tool message answers a pending tool call', {
        pending: pending.map((call) => call.toolCallId),
      });
    agUiFace(log);
    const before = log.lastSeq;
    const submitted = await runs.submitToolResults(
      user.id,
      runId,
      answers.map((message) =>
        message.error !== undefined
          ? { toolCallId: message.toolCallId, error: message.error }
          : { toolCallId: message.toolCallId, output: contentText(message.content) },
      ),
    );
    const stream = streamContext(input);
    if (!submitted.resumed) return stillWaiting(submitted.log, stream, answers, pending, context);
    return streamAgUi(submitted.log, before, stream, streamOptions(context));
  }

  /**
   * Some of the run's calls are still unanswered: an AG-UI run that ends at once, naming them, as the
   * one before it did.
   */
  function stillWaiting(
    log: RunLog,
    stream: AgUiStreamContext,
    answers: { toolCallId: string }[],
    pending: PendingCall[],
    context: Context<Env>,
  ): Response {
    const open = pending
      .map((call) => call.toolCallId)
      .filter((id) => !answers.some((answer) => answer.toolCallId === id));
    const { runId, conversationId, messageId } = log.state;
    const events = [
      runStartedEvent(log, stream),
      ...terminalEvents(
        {
          outcome: 'success',
          pendingToolCallIds: open,
          state: {
            runId,
            conversationId,
            messageId,
            status: 'paused',
            pause: { reason: 'tool_result', toolCallIds: open },
          },
        },
        stream,
      ),
    ];
    return new Response(encodeAgUiEvents(events, log.lastSeq), {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-runstream-run-id': log.runId,
        'x-request-id': context.get('traceId'),
      },
    });
  }

  /**
   * A new user message checked (400 when it cannot start a run on the thread's agent `agentId`): its
   * text, id and run options.
   */
  function prepareStart(input: RunAgentInput, agentId: string, context: Context<Env>) {
    const last = input.messages.at(-1);
    if (last?.role !== 'user')
      throw new HttpError(400, 'invalid_request', 'messages: the last message is not the user’s');
    const text = contentText(last.content).trim();
    if (text === '') throw new HttpError(400, 'invalid_request', 'messages: the user message has no text');
    if (text.length > 100_000)
      throw new HttpError(400, 'invalid_request', 'messages: the user message is too long');
    const instructions = [
      ...input.messages.flatMap((message) =>
        message.role === 'system' || message.role === 'developer' ? [message.content] : [],
      ),
      ...(input.context ?? []).map((entry) => `${entry.description}: ${entry.value}`),
    ]
      .filter((part) => part.trim() !== '')
      .join('\n\n');
    const runOptions = {
      // AG-UI's frontend tools: the client runs them, so the run pauses on their calls.
      hostTools: (input.tools ?? []).map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters ?? { type: 'object', properties: {} },
      })),
      ...(instructions === '' ? {} : { instructions }),
      traceId: context.get('traceId'),
      face: 'ag-ui' as const,
    };
    // Refused before the thread's conversation exists, so a 400 leaves nothing behind.
    runs.checkRunOptions(runOptions, agentId);
    return { text, clientMessageId: storedMessageId(last.id), runOptions };
  }

  /** A new user message: a new run on the thread's conversation (of `agentId` when it is new). */
  async function start(
    user: User,
    input: RunAgentInput,
    agentId: string,
    context: Context<Env>,
  ): Promise<Response> {
    const { text, clientMessageId, runOptions } = prepareStart(input, agentId, context);
    const log = await startRunWithin(options.limits, store, user.id, async () => {
      const conversation = await conversationForThread(
        store,
        user.id,
        DIALECT,
        input.threadId,
        text.slice(0, 30),
        agentId,
      );
      return runs.startRun(user.id, conversation.id, text, clientMessageId, runOptions);
    });
    return streamAgUi(log, 0, streamContext(input), streamOptions(context));
  }

  app.post('/v1/ag-ui', async (context) => {
    const user = context.get('user');
    const input = await readJsonBody(bodyOf(context), RunAgentInputSchema, AG_UI_MAX_BODY_BYTES);
    const requested = requestedAgentOf(input);
    if ('invalid' in requested) throw new HttpError(400, 'invalid_request', requested.invalid);
    // A thread keeps its agent: naming another one is refused whatever the input does.
    const { id: agentId } = await agentForThread(
      store,
      runs,
      user.id,
      DIALECT,
      input.threadId,
      requested.agentId,
    );
    if (
      input.resume !== undefined &&
      input.resume.length > 0 &&
      !(await cancelsOnly(user, input, agentId, context))
    )
      return resume(user, input, context);
    if (input.messages.at(-1)?.role === 'tool') return toolResults(user, input, context);
    if (input.messages.at(-1)?.role === 'user') return start(user, input, agentId, context);
    throw new HttpError(
      400,
      'invalid_request',
      'nothing to run: send a new user message last, tool messages for the pending tool calls, or resume entries for the open interrupts',
    );
  });

  app.get('/v1/ag-ui/runs/:id/events', async (context) => {
    const user = context.get('user');
    const run = await runs.getRun(user.id, context.req.param('id'));
    const log = await runs.logOf(user.id, run.id);
    const stream: AgUiStreamContext = {
      threadId: context.req.query('threadId') ?? run.conversationId,
      runId: context.req.query('runId') ?? run.id,
    };
    const after = parseSeq(context.req.header('last-event-id') ?? context.req.query('after'));
    return reconnectAgUi(log, after, stream, streamOptions(context));
  });
}

function streamContext(input: RunAgentInput): AgUiStreamContext {
  return {
    threadId: input.threadId,
    runId: input.runId,
    ...(input.state === undefined ? {} : { clientState: input.state }),
  };
}

function parseSeq(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value))
    throw new HttpError(400, 'invalid_request', 'Last-Event-ID / after must be a non-negative integer');
  return Number(value);
}
