import type { ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import type { RunManager } from '../../runtime/index.ts';
import type { ResponseRecord, ResponseRecords, RunStore, User } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import { bodyOf, nodeResponseOf } from '../node-response-of.ts';
import { readJsonBody } from '../read-json-body.ts';
import type { StreamLogOptions } from '../stream-run.ts';
import { startRunWithin, type UserLimits } from '../user-limits.ts';
import type { ResponseContext } from './response-object.ts';
import {
  CancelResponseSchema,
  type CreateResponseRequest,
  CreateResponseSchema,
  messageText,
  outputText,
  RESPONSES_MAX_BODY_BYTES,
  SubmitToolResultsSchema,
} from './responses-request.ts';
import { responseObjectOf, streamResponse } from './stream-response.ts';

export interface ResponsesRoutesOptions {
  store: RunStore;
  runs: RunManager;
  responses: ResponseRecords;
  /** The model the server runs, reported as each response's `model`. */
  modelName: string;
  heartbeatMs?: number;
  /** Per-user limits: a response is a run, under the same cap on running runs. */
  limits?: UserLimits;
}

type Env = { Variables: { user: User; traceId: string } };

type ToolResultInput = { call_id: string; output?: Parameters<typeof outputText>[0]; error?: string };

/**
 * The Streamable HTTP "responses" face (seed 004): start a response, let the host run its own tools
 * and submit their results in a new request, cancel, get, resume a stream. Every response is a run
 * of the same RunManager, event log and store as the chat API; this file only translates.
 */
export function registerResponsesRoutes(app: Hono<Env>, options: ResponsesRoutesOptions): void {
  const { store, runs, responses } = options;
  const streamOptions = (traceId: string, outgoing: ServerResponse | undefined): StreamLogOptions => ({
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    headers: { 'x-request-id': traceId },
    ...(outgoing !== undefined ? { outgoing } : {}),
  });

  async function ownedRecord(user: User, id: string): Promise<ResponseRecord> {
    const record = await responses.get(user.id, id);
    if (record === undefined) throw new HttpError(404, 'not_found', 'no such response');
    return record;
  }

  /** Submit host results to a waiting response and answer with its continuation. */
  async function submit(
    user: User,
    record: ResponseRecord,
    results: ToolResultInput[],
    stream: boolean,
    accept: string | undefined,
    traceId: string,
    outgoing: ServerResponse | undefined,
  ): Promise<Response> {
    const before = (await runs.logOf(user.id, record.id)).lastSeq;
    const { log, resumed } = await runs.submitToolResults(
      user.id,
      record.id,
      results.map((result) =>
        result.error !== undefined
          ? { toolCallId: result.call_id, error: result.error }
          : { toolCallId: result.call_id, output: outputText(result.output ?? '') },
      ),
    );
    const context = contextOf(record);
    if (!resumed) {
      // Other calls of the same turn are still unanswered: the response keeps waiting.
      return Response.json(responseObjectOf(log, context), {
        status: 202,
        headers: { 'x-request-id': traceId },
      });
    }
    if (!stream) {
      await runs.settled(record.id);
      return Response.json(responseObjectOf(log, context), { headers: { 'x-request-id': traceId } });
    }
    return streamResponse(log, context, { afterNativeSeq: before }, accept, streamOptions(traceId, outgoing));
  }

  app.post('/v1/responses', async (context) => {
    const user = context.get('user');
    const traceId = context.get('traceId');
    const body = await readJsonBody(bodyOf(context), CreateResponseSchema, RESPONSES_MAX_BODY_BYTES);
    const stream = body.stream ?? false;
    const accept = context.req.header('accept');
    const items = typeof body.input === 'string' ? [] : body.input;
    const outputs = items.filter((item) => item.type === 'function_call_output') as ToolResultInput[];

    const previous = body.previous_response_id
      ? await ownedRecord(user, body.previous_response_id)
      : undefined;
    if (outputs.length > 0) {
      // OpenAI-style clients answer a function call with a new request naming the previous response.
      if (previous === undefined)
        throw new HttpError(400, 'invalid_request', 'function_call_output items need previous_response_id');
      if (userText(body) !== '')
        throw new HttpError(400, 'invalid_request', 'send function_call_output items without new messages');
      return submit(user, previous, outputs, stream, accept, traceId, nodeResponseOf(context));
    }

    const text = userText(body);
    if (text === '') throw new HttpError(400, 'invalid_request', 'input: needs a user message');
    const instructions = [body.instructions ?? '', ...systemTexts(body)]
      .filter((part) => part !== '')
      .join('\n\n');
    const tools = (body.tools ?? []).map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters ?? { type: 'object', properties: {} },
    }));
    const runOptions = {
      hostTools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? '',
        parameters: tool.parameters,
      })),
      ...(instructions === '' ? {} : { instructions }),
      traceId,
      face: 'responses' as const,
    };
    // Refuse bad tools before a conversation exists for them, so a 400 leaves nothing behind.
    runs.checkRunOptions(runOptions);
    // Under the cap before a conversation exists for it, so a 429 leaves nothing behind.
    const { conversationId, log } = await startRunWithin(options.limits, store, user.id, async () => {
      const conversationId =
        previous?.conversationId ?? (await store.createConversation(user.id, text.slice(0, 30))).id;
      return {
        conversationId,
        log: await runs.startRun(user.id, conversationId, text, undefined, runOptions),
      };
    });
    const record: ResponseRecord = {
      id: log.runId,
      userId: user.id,
      conversationId,
      createdAt: Date.now(),
      model: options.modelName,
      instructions: instructions === '' ? null : instructions,
      tools,
      previousResponseId: previous?.id ?? null,
      traceId,
      metadata: body.metadata ?? {},
    };
    await responses.save(record);
    if (!stream) {
      await runs.settled(log.runId);
      return context.json(responseObjectOf(log, contextOf(record)), 200, { 'x-request-id': traceId });
    }
    return streamResponse(
      log,
      contextOf(record),
      { afterSequence: -1 },
      accept,
      streamOptions(traceId, nodeResponseOf(context)),
    );
  });

  app.post('/v1/responses/:id/tool_results', async (context) => {
    const user = context.get('user');
    const record = await ownedRecord(user, context.req.param('id'));
    const body = await readJsonBody(bodyOf(context), SubmitToolResultsSchema, RESPONSES_MAX_BODY_BYTES);
    const results = Array.isArray(body) ? body : body.tool_outputs;
    const stream = Array.isArray(body) ? context.req.query('stream') !== 'false' : body.stream !== false;
    return submit(
      user,
      record,
      results,
      stream,
      context.req.header('accept'),
      context.get('traceId'),
      nodeResponseOf(context),
    );
  });

  app.post('/v1/responses/:id/cancel', async (context) => {
    const user = context.get('user');
    const record = await ownedRecord(user, context.req.param('id'));
    const body = await readJsonBody(bodyOf(context), CancelResponseSchema);
    await runs.cancel(user.id, record.id, body.reason ?? 'user_stop');
    const log = await runs.logOf(user.id, record.id);
    return context.json(responseObjectOf(log, contextOf(record)));
  });

  app.get('/v1/responses/:id', async (context) => {
    const user = context.get('user');
    const record = await ownedRecord(user, context.req.param('id'));
    const log = await runs.logOf(user.id, record.id);
    if (context.req.query('stream') !== 'true') return context.json(responseObjectOf(log, contextOf(record)));
    const after = context.req.header('last-event-id') ?? context.req.query('starting_after');
    return streamResponse(
      log,
      contextOf(record),
      { afterSequence: parseSequence(after) },
      context.req.header('accept'),
      streamOptions(context.get('traceId'), nodeResponseOf(context)),
    );
  });
}

export function contextOf(record: ResponseRecord): ResponseContext {
  return {
    id: record.id,
    createdAt: record.createdAt,
    model: record.model,
    instructions: record.instructions,
    tools: record.tools.map((tool) => ({ ...tool, strict: false })),
    previousResponseId: record.previousResponseId,
    conversationId: record.conversationId,
    traceId: record.traceId,
    metadata: record.metadata,
  };
}

/** The user's words: a string input, or the text of its user message items. */
function userText(body: CreateResponseRequest): string {
  if (typeof body.input === 'string') return body.input.trim();
  return body.input
    .flatMap((item) => ('role' in item && item.role === 'user' ? [messageText(item.content as never)] : []))
    .join('\n\n')
    .trim();
}

/** System and developer message items join the instructions. */
function systemTexts(body: CreateResponseRequest): string[] {
  if (typeof body.input === 'string') return [];
  return body.input.flatMap((item) =>
    'role' in item && (item.role === 'system' || item.role === 'developer')
      ? [messageText(item.content as never)]
      : [],
  );
}

function parseSequence(value: string | undefined): number {
  if (value === undefined || value === '') return -1;
  if (!/^\d+$/.test(value))
    throw new HttpError(
      400,
      'invalid_request',
      'starting_after / Last-Event-ID must be a non-negative integer',
    );
  return Number(value);
}
