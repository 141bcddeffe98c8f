import type { Context, Hono } from 'hono';
import type { RunLog, RunManager } from '../../runtime/index.ts';
import type { RunStore, User } from '../../store/index.ts';
import { agentForThread, conversationForThread, dialectConversationId } from '../dialect-conversation.ts';
import { HttpError } from '../http-error.ts';
import { bodyOf } from '../node-response-of.ts';
import { readJsonBody } from '../read-json-body.ts';
import { type StreamLogOptions, streamLogOptionsOf } from '../stream-run.ts';
import { startRunWithin, type UserLimits } from '../user-limits.ts';
import {
  AI_SDK_MAX_BODY_BYTES,
  type AiSdkChatRequest,
  AiSdkChatRequestSchema,
  answersOf,
  type UiMessageInput,
  userTextOf,
} from './ai-sdk-request.ts';
import { caughtUp, parsePositionId, streamUiMessages, uiMessageFace } from './ui-message-stream.ts';

export interface AiSdkRoutesOptions {
  store: RunStore;
  runs: RunManager;
  heartbeatMs?: number | undefined;
  /** Per-user limits: a chat turn is a run, under the same cap on running runs. */
  limits?: UserLimits | undefined;
}

type Env = { Variables: { user: User; traceId: string } };

/** The dialect's name: its conversations' ids and its runs' `face`. */
const DIALECT = 'ai-sdk' as const;

/**
 * The Vercel AI SDK's chat dialect (docs/integrations/ai-sdk.md): `POST /v1/ai-sdk/chat` takes what
 * `DefaultChatTransport` sends and answers with a UI message stream of a runstream run, and
 * `GET /v1/ai-sdk/chat/:id/stream` is the SDK's resume. Each chat id is one runstream conversation
 * of the user, of the agent its first request named (`agentId`, else the default); every turn is a
 * run of the same RunManager and log as the chat API. Only translates.
 */
export function registerAiSdkRoutes(app: Hono<Env>, options: AiSdkRoutesOptions): void {
  const { store, runs } = options;
  const streaming = (context: Context<Env>): StreamLogOptions =>
    streamLogOptionsOf(context, options.heartbeatMs);

  app.post('/v1/ai-sdk/chat', async (context) => {
    const user = context.get('user');
    const body = await readJsonBody(bodyOf(context), AiSdkChatRequestSchema, AI_SDK_MAX_BODY_BYTES);
    const last = body.messages.at(-1) as UiMessageInput;
    if (body.trigger === 'regenerate-message')
      throw new HttpError(
        400,
        'invalid_request',
        'trigger: regenerate-message is not supported; runstream keeps the chat history, send the question again',
      );
    // A chat keeps its agent: naming another one is refused whatever the request does.
    const agent = await agentForThread(store, runs, user.id, DIALECT, body.id, body.agentId);
    if (last.role === 'assistant') {
      const log = await continueRun(user, body.id, last);
      return streamUiMessages(log.log, { from: 'continuation', afterSeq: log.before }, streaming(context));
    }
    if (last.role !== 'user')
      throw new HttpError(
        400,
        'invalid_request',
        'messages: the last message must be the user’s (or the assistant’s answers)',
      );
    const text = userTextOf(last);
    if (text === '')
      throw new HttpError(400, 'invalid_request', 'messages: the last user message has no text part');
    if (text.length > 8000)
      throw new HttpError(
        400,
        'invalid_request',
        'messages: the last user message is longer than 8000 characters',
      );
    const log = await startTurn(user, body, agent.id, text, context.get('traceId'));
    return streamUiMessages(log, { from: 'start' }, streaming(context));
  });

  app.get('/v1/ai-sdk/chat/:id/stream', async (context) => {
    const user = context.get('user');
    const lastEventId = context.req.header('last-event-id');
    const position = lastEventId === undefined ? undefined : parsePositionId(lastEventId);
    if (lastEventId !== undefined && position === undefined)
      throw new HttpError(
        400,
        'invalid_request',
        'Last-Event-ID must be an id of the stream (<runId>:<seq>) or a non-negative integer',
      );
    // Trimmed as the POST's `id` is, or a padded chat id would name another conversation here.
    const chatId = context.req.param('id').trim();
    const conversation = await store.getConversation(dialectConversationId(user.id, DIALECT, chatId));
    // A chat with nothing under way (never started, finished, or another user's id, which names
    // another conversation): 204, as the AI SDK's clients expect of a chat with no active stream.
    const active = conversation?.userId === user.id ? await store.findActiveRun(conversation.id) : undefined;
    const noContent = () =>
      new Response(null, { status: 204, headers: { 'x-request-id': context.get('traceId') } });
    if (active === undefined) return noContent();
    const log = await runs.logOf(user.id, active.id);
    // A position in another run of the chat (one that has ended) is none in this one: all of it.
    if (position === undefined || (position.runId !== null && position.runId !== active.id))
      return streamUiMessages(log, { from: 'start' }, streaming(context));
    const afterSeq = position.seq;
    if (caughtUp(log, afterSeq)) return noContent();
    return streamUiMessages(log, { from: 'seq', afterSeq }, streaming(context));
  });

  /** A new user turn: a run in the chat's conversation (of `agentId`), under the user's limits. */
  async function startTurn(
    user: User,
    body: AiSdkChatRequest,
    agentId: string,
    text: string,
    traceId: string,
  ): Promise<RunLog> {
    const runOptions = {
      hostTools: (body.tools ?? []).map((tool) => ({
        name: tool.name,
        description: tool.description ?? '',
        parameters: tool.parameters ?? { type: 'object', properties: {} },
      })),
      traceId,
      face: DIALECT,
    };
    // Refuse bad tools (against the chat's agent), and runs over the cap, before a conversation exists.
    runs.checkRunOptions(runOptions, agentId);
    return startRunWithin(options.limits, store, user.id, async () => {
      const conversation = await conversationForThread(
        store,
        user.id,
        DIALECT,
        body.id,
        text.slice(0, 30),
        agentId,
      );
      return runs.startRun(user.id, conversation.id, text, undefined, runOptions);
    });
  }

  /**
   * The client answered the paused run in its last assistant message: approvals become decisions,
   * outputs of its own tools become host tool results. Only the calls the run waits for are taken
   * (the client sends earlier answers again); the continuation streams from where the run paused.
   */
  async function continueRun(
    user: User,
    chatId: string,
    last: UiMessageInput,
  ): Promise<{ log: RunLog; before: number }> {
    const conversation = await store.getConversation(dialectConversationId(user.id, DIALECT, chatId));
    if (conversation === undefined || conversation.userId !== user.id)
      throw new HttpError(404, 'not_found', 'no such chat');
    const active = await store.findActiveRun(conversation.id);
    if (active === undefined || active.status !== 'paused')
      throw new HttpError(
        409,
        'run_finished',
        'no run of this chat waits for an answer; send a user message',
      );
    // The run is found by the chat, the calls by their ids, and providers may number calls (`call_0`):
    // without this, a stale tab's answer to an earlier run would decide a later run's card.
    if (last.id !== active.messageId)
      throw new HttpError(
        409,
        'run_finished',
        'messages: the answered assistant message is not the one of the run that waits',
        { messageId: active.messageId },
      );
    const log = await runs.logOf(user.id, active.id);
    // The face is made before the decision: a log that no longer holds the run's start (the server
    // restarted while the run waited) then begins it at the pause, and the continuation is the
    // frames after it, not a second copy of the message.
    uiMessageFace(log);
    const pause = log.state.pause;
    const waiting = new Set(pause?.pending.map((pending) => pending.toolCallId) ?? []);
    const { approvals, outputs } = answersOf(last);
    const before = log.lastSeq;
    if (pause?.reason === 'confirmation') {
      // A card decided by an earlier request (the run waits for another one) is not decided again;
      // the client sends its answer along with the next one. A different answer is a conflict.
      for (const call of await store.listToolCalls(active.id)) {
        if (call.decision === null || !waiting.has(call.toolCallId)) continue;
        waiting.delete(call.toolCallId);
        const again = approvals.find((approval) => approval.toolCallId === call.toolCallId);
        if (again !== undefined && again.approved !== (call.decision.decision === 'approve'))
          throw new HttpError(
            409,
            'decision_conflict',
            runs.agent(conversation.agentId).messages.alreadyDecided,
            {
              decision: call.decision,
            },
          );
      }
      const taken = approvals.filter((approval) => waiting.has(approval.toolCallId));
      if (taken.length === 0)
        throw new HttpError(
          400,
          'invalid_request',
          'messages: no approval response for the tool call the run waits for',
          {
            pending: [...waiting],
          },
        );
      let decided = log;
      for (const approval of taken)
        decided = await runs.decide(
          user.id,
          active.id,
          approval.toolCallId,
          approval.approved ? 'approve' : 'reject',
          approval.reason,
        );
      return { log: decided, before };
    }
    const taken = outputs.filter((output) => waiting.has(output.toolCallId));
    if (taken.length === 0)
      throw new HttpError(
        400,
        'invalid_request',
        'messages: no tool output for the tool call the run waits for',
        {
          pending: [...waiting],
        },
      );
    const submitted = await runs.submitToolResults(user.id, active.id, taken);
    return { log: submitted.log, before };
  }
}
