import type { Context } from 'hono';
import type { User } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import { bodyOf } from '../node-response-of.ts';
import { readJsonBody } from '../read-json-body.ts';
import type { AnswerRefusals, FaceThread } from '../run-input/index.ts';
import type { FaceContext, FaceEnv, ServerFace } from '../server-face.ts';
import { streamLogOptionsOf } from '../stream-run.ts';
import {
  AI_SDK_MAX_BODY_BYTES,
  AiSdkChatRequestSchema,
  answersOf,
  type UiMessageInput,
  userTextOf,
} from './ai-sdk-request.ts';
import { caughtUp, parsePositionId, streamUiMessages, uiMessageFace } from './ui-message-stream.ts';

/** The dialect's name: its conversations' ids and its runs' `face`. */
const DIALECT = 'ai-sdk' as const;

/** The AI SDK's words: a thread is a chat, and answers come in the last assistant message. */
const REFUSALS: Partial<AnswerRefusals> = {
  noThread: 'no such chat',
  notWaiting: () => ({
    code: 'run_finished',
    message: 'no run of this chat waits for an answer; send a user message',
  }),
  otherMessage: 'messages: the answered assistant message is not the one of the run that waits',
  noAnswer: (reason) =>
    reason === 'confirmation'
      ? 'messages: no approval response for the tool call the run waits for'
      : 'messages: no tool output for the tool call the run waits for',
};

/**
 * The Vercel AI SDK's chat dialect (docs/integrations/ai-sdk.md): `POST /v1/ai-sdk/chat` takes what
 * `DefaultChatTransport` sends and answers with a UI message stream of a runstream run, and
 * `GET /v1/ai-sdk/chat/:id/stream` is the SDK's resume. Each chat id is one runstream conversation
 * of the user, of the agent its first request named (`agentId`, else the default); every turn is a
 * run of the same RunManager and log as the chat API. Only translates.
 */
export const aiSdkFace: ServerFace = {
  name: DIALECT,
  mount(app, { runs, input, heartbeatMs }: FaceContext) {
    const streaming = (context: Context<FaceEnv>) => streamLogOptionsOf(context, heartbeatMs);

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
      const thread = threadOf(body.id);
      // A chat keeps its agent: naming another one is refused whatever the request does.
      const agent = await input.agentOf(user.id, { thread }, body.agentId);
      if (last.role === 'assistant') {
        const { log, afterSeq } = await continueRun(user, thread, last);
        return streamUiMessages(log, { from: 'continuation', afterSeq }, streaming(context));
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
      const { log } = await input.start(
        user.id,
        { thread },
        {
          agentId: agent.id,
          text,
          options: {
            hostTools: (body.tools ?? []).map((tool) => ({
              name: tool.name,
              description: tool.description ?? '',
              parameters: tool.parameters ?? { type: 'object', properties: {} },
            })),
            traceId: context.get('traceId'),
            face: DIALECT,
          },
        },
      );
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
      const active = await input.activeRun(user.id, threadOf(context.req.param('id').trim()));
      // A chat with nothing under way (never started, finished, or another user's id, which names
      // another conversation): 204, as the AI SDK's clients expect of a chat with no active stream.
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

    /**
     * The client answered the paused run in its last assistant message: approvals become decisions,
     * outputs of its own tools become host tool results. Only the calls the run waits for are taken
     * (the client sends earlier answers again); the continuation streams from where the run paused.
     */
    async function continueRun(user: User, thread: FaceThread, last: UiMessageInput) {
      // The run is found by the chat, the calls by their ids: the answered message must be its own (a
      // message without an id is none of its).
      const waiting = await input.pausedRun(user.id, thread, {
        messageId: last.id ?? '',
        refusals: REFUSALS,
      });
      const { approvals, outputs } = answersOf(last);
      const how = { coverage: 'pending', refusals: REFUSALS, face: uiMessageFace } as const;
      if (waiting.pause?.reason === 'confirmation')
        return input.decide(
          user.id,
          waiting,
          approvals.map((approval) => ({
            toolCallId: approval.toolCallId,
            decision: approval.approved ? 'approve' : 'reject',
            note: approval.reason,
          })),
          how,
        );
      return input.submit(user.id, waiting, outputs, how);
    }
  },
};

function threadOf(chatId: string): FaceThread {
  return { dialect: DIALECT, threadId: chatId };
}
