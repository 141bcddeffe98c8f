import type { Context } from 'hono';
import type { RunLog } from '../../runtime/index.ts';
import { sha256Hex } from '../../shared/index.ts';
import type { User } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import { bodyOf } from '../node-response-of.ts';
import { readJsonBody } from '../read-json-body.ts';
import type { AnswerRefusals, FaceThread, UserTurn } from '../run-input/index.ts';
import type { FaceContext, FaceEnv, ServerFace } from '../server-face.ts';
import { streamLogOptionsOf } from '../stream-run.ts';
import {
  type AgUiStreamContext,
  agUiLogFace,
  encodeAgUiEvents,
  runStartedEvent,
  terminalEvents,
} from './ag-ui-log-face.ts';
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

/** The dialect name in thread-derived conversation ids and on the runs (`face`). */
const DIALECT = 'ag-ui';
/** `clientMessageId` is at most this long (the chat API's limit); longer AG-UI ids are kept hashed. */
const MAX_CLIENT_MESSAGE_ID = 100;

/** AG-UI's words where they differ from the service's: answers are `resume` entries and tool messages. */
const REFUSALS: Partial<AnswerRefusals> = {
  noAnswer: () => 'no tool message answers a pending tool call',
  notOpen: (toolCallId) => `resume: no open interrupt ${toolCallId}`,
  unanswered: 'resume: answer every open interrupt',
};

/**
 * The `clientMessageId` an AG-UI message id is stored as: itself, or a digest of an id longer than the
 * store keeps, so a long id still tells a message already answered from a new one.
 */
function storedMessageId(id: string): string {
  return id.length <= MAX_CLIENT_MESSAGE_ID ? id : `sha256:${sha256Hex(id).slice(0, 48)}`;
}

/**
 * AG-UI (CopilotKit's Agent-User Interaction protocol, docs/integrations/ag-ui.md): `POST /v1/ag-ui`
 * takes a `RunAgentInput` and answers with an AG-UI event stream, `GET /v1/ag-ui/runs/{id}/events`
 * reconnects. Each AG-UI thread is one conversation of the caller, of the agent its first input
 * named (`forwardedProps.agentId`, else the default); each request is one stretch of a run of the same
 * RunManager and log as every other face: a new user message starts a run, `resume` entries decide
 * its paused confirmations, trailing tool messages answer its frontend tool calls.
 */
export const agUiFace: ServerFace = {
  name: DIALECT,
  mount(app, { store, runs, input, heartbeatMs }: FaceContext) {
    const streamOptions = (context: Context<FaceEnv>) => streamLogOptionsOf(context, heartbeatMs);

    /**
     * Resume entries that only cancel (AG-UI's way past interrupts the person will not answer, to go on
     * with the thread): with a new user message last, the paused run is stopped and the message starts
     * the next one; entries for interrupts that no longer wait (the run was stopped or decided
     * elsewhere) are moot. `true` when the request is to be handled as if it had no resume entries.
     */
    async function cancelsOnly(
      user: User,
      request: RunAgentInput,
      agentId: string,
      context: Context<FaceEnv>,
    ): Promise<boolean> {
      const entries = request.resume ?? [];
      if (!entries.every((entry) => entry.status === 'cancelled')) return false;
      const waiting = await input.waitingRun(user.id, threadOf(request));
      if (waiting === 'missing' || waiting?.pause?.reason !== 'confirmation') return true;
      const { pending } = waiting.pause;
      const named = (entry: { interruptId: string }) =>
        pending.some((call) => call.toolCallId === entry.interruptId);
      // Entries for other interrupts go the usual way, to be refused with the open ones named.
      const last = request.messages.at(-1);
      if (last?.role !== 'user' || !entries.every(named)) return false;
      // The message the paused run answers is not a new one: the cancellation is then a rejection.
      const seen = await store.listMessages(waiting.run.conversationId);
      if (
        seen.some(
          (message) => message.role === 'user' && message.clientMessageId === storedMessageId(last.id),
        )
      )
        return false;
      // The new message is checked before the paused run is stopped for it: a refused one loses nothing.
      turnOf(request, agentId, context);
      await runs.cancel(user.id, waiting.run.id, 'interrupt_cancelled');
      return true;
    }

    /** `resume` entries: the decisions on the thread's paused confirmations, then the continuation. */
    async function resume(user: User, request: RunAgentInput, context: Context<FaceEnv>): Promise<Response> {
      const waiting = await input.pausedRun(user.id, threadOf(request), { reason: 'confirmation' });
      const decisions = (request.resume ?? []).map((entry) => {
        const decision = decisionOf(entry);
        if ('invalid' in decision) throw new HttpError(400, 'invalid_request', decision.invalid);
        return { toolCallId: entry.interruptId, ...decision };
      });
      // All or nothing, as AG-UI asks of a resume.
      const { log, afterSeq } = await input.decide(user.id, waiting, decisions, {
        coverage: 'every',
        refusals: REFUSALS,
        face: agUiLogFace,
      });
      return streamAgUi(log, afterSeq, streamContext(request), streamOptions(context));
    }

    /** Trailing tool messages: the client's results of its tools, then the continuation. */
    async function toolResults(
      user: User,
      request: RunAgentInput,
      context: Context<FaceEnv>,
    ): Promise<Response> {
      const waiting = await input.pausedRun(user.id, threadOf(request), { reason: 'tool_result' });
      const trailing: Extract<AgUiMessage, { role: 'tool' }>[] = [];
      for (let index = request.messages.length - 1; index >= 0; index -= 1) {
        const message = request.messages[index];
        if (message?.role !== 'tool') break;
        trailing.unshift(message);
      }
      const submitted = await input.submit(
        user.id,
        waiting,
        trailing.map((message) =>
          message.error !== undefined
            ? { toolCallId: message.toolCallId, error: message.error }
            : { toolCallId: message.toolCallId, output: contentText(message.content) },
        ),
        { coverage: 'pending', refusals: REFUSALS, face: agUiLogFace },
      );
      const stream = streamContext(request);
      if (!submitted.resumed) return stillWaiting(submitted.log, stream, submitted.open, context);
      return streamAgUi(submitted.log, submitted.afterSeq, stream, streamOptions(context));
    }

    /**
     * Some of the run's calls are still unanswered (`open`): an AG-UI run that ends at once, naming
     * them, as the one before it did.
     */
    function stillWaiting(
      log: RunLog,
      stream: AgUiStreamContext,
      open: string[],
      context: Context<FaceEnv>,
    ): Response {
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
     * A new user message checked (400 when it cannot start a run on the thread's agent `agentId`): the
     * turn it starts.
     */
    function turnOf(request: RunAgentInput, agentId: string, context: Context<FaceEnv>): UserTurn {
      const last = request.messages.at(-1);
      if (last?.role !== 'user')
        throw new HttpError(400, 'invalid_request', 'messages: the last message is not the user’s');
      const text = contentText(last.content).trim();
      if (text === '') throw new HttpError(400, 'invalid_request', 'messages: the user message has no text');
      if (text.length > 100_000)
        throw new HttpError(400, 'invalid_request', 'messages: the user message is too long');
      const instructions = [
        ...request.messages.flatMap((message) =>
          message.role === 'system' || message.role === 'developer' ? [message.content] : [],
        ),
        ...(request.context ?? []).map((entry) => `${entry.description}: ${entry.value}`),
      ]
        .filter((part) => part.trim() !== '')
        .join('\n\n');
      const options = {
        // AG-UI's frontend tools: the client runs them, so the run pauses on their calls.
        hostTools: (request.tools ?? []).map((tool) => ({
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters ?? { type: 'object', properties: {} },
        })),
        ...(instructions === '' ? {} : { instructions }),
        traceId: context.get('traceId'),
        face: 'ag-ui' as const,
      };
      // Refused before the thread's conversation exists, so a 400 leaves nothing behind.
      runs.checkRunOptions(options, agentId);
      return { agentId, text, clientMessageId: storedMessageId(last.id), options };
    }

    app.post('/v1/ag-ui', async (context) => {
      const user = context.get('user');
      const request = await readJsonBody(bodyOf(context), RunAgentInputSchema, AG_UI_MAX_BODY_BYTES);
      const requested = requestedAgentOf(request);
      if ('invalid' in requested) throw new HttpError(400, 'invalid_request', requested.invalid);
      // A thread keeps its agent: naming another one is refused whatever the input does.
      const thread = threadOf(request);
      const { id: agentId } = await input.agentOf(user.id, { thread }, requested.agentId);
      if (
        request.resume !== undefined &&
        request.resume.length > 0 &&
        !(await cancelsOnly(user, request, agentId, context))
      )
        return resume(user, request, context);
      if (request.messages.at(-1)?.role === 'tool') return toolResults(user, request, context);
      if (request.messages.at(-1)?.role === 'user') {
        const { log } = await input.start(user.id, { thread }, turnOf(request, agentId, context));
        return streamAgUi(log, 0, streamContext(request), streamOptions(context));
      }
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
  },
};

function threadOf(request: RunAgentInput): FaceThread {
  return { dialect: DIALECT, threadId: request.threadId };
}

function streamContext(request: RunAgentInput): AgUiStreamContext {
  return {
    threadId: request.threadId,
    runId: request.runId,
    ...(request.state === undefined ? {} : { clientState: request.state }),
  };
}

function parseSeq(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value))
    throw new HttpError(400, 'invalid_request', 'Last-Event-ID / after must be a non-negative integer');
  return Number(value);
}
