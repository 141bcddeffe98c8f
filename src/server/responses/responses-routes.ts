import type { ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import type { RunLog, RunManager } from '../../runtime/index.ts';
import type { ResponseRecord, ResponseRecords, RunStore, User } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import { bodyOf, nodeResponseOf } from '../node-response-of.ts';
import { readJsonBody } from '../read-json-body.ts';
import type { StreamLogOptions } from '../stream-run.ts';
import { startRunWithin, type UserLimits } from '../user-limits.ts';
import {
  type InputHistory,
  instructionTexts,
  lastUserText,
  readInputHistory,
  transcriptOf,
} from './input-history.ts';
import { parseItemId } from './plain-items.ts';
import { parseResponseId } from './plain-responses-mapper.ts';
import {
  plainMapperOf,
  plainResponseOf,
  streamPlainFrom,
  streamPlainStretch,
} from './plain-stream-response.ts';
import type { ResponseContext } from './response-object.ts';
import { EXTENSIONS_HEADER, type ResponsesMode, responsesModeOf } from './responses-mode.ts';
import {
  CancelResponseSchema,
  type CreateResponseRequest,
  CreateResponseSchema,
  outputText,
  RESPONSES_MAX_BODY_BYTES,
  SubmitToolResultsSchema,
} from './responses-request.ts';
import { openHostCalls, resolveStatelessInput } from './stateless-input.ts';
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

/** What a route hands on about its request. */
interface HttpContext {
  traceId: string;
  accept: string | undefined;
  outgoing: ServerResponse | undefined;
}

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

  /**
   * Answer with the continuation of a response an answer resumed (or not): in the extension shape
   * the same response from `response.resumed` on (202 with the object while other calls wait); in
   * the plain shape the new response the resume began.
   */
  async function continuation(
    user: User,
    mode: ResponsesMode,
    record: ResponseRecord,
    log: RunLog,
    before: number,
    resumed: boolean,
    stream: boolean,
    http: HttpContext,
  ): Promise<Response> {
    const context = contextOf(record);
    const headers = { 'x-request-id': http.traceId };
    if (mode === 'plain') {
      if (!resumed) {
        // Nothing resumed (the answer was already taken): the response as it stands.
        const mapper = plainMapperOf(log, context);
        const last = mapper.last;
        return Response.json(last === null ? null : mapper.response(last), { headers });
      }
      if (!stream) {
        await runs.settled(record.id);
        const mapper = plainMapperOf(log, context);
        const stretch = mapper.stretchAfter(before) ?? mapper.last;
        return Response.json(stretch === null ? null : mapper.response(stretch), { headers });
      }
      return streamPlainFrom(log, context, before, http.accept, streamOptions(http.traceId, http.outgoing));
    }
    if (!resumed) {
      // Other calls of the same turn are still unanswered: the response keeps waiting.
      return Response.json(responseObjectOf(log, context), { status: 202, headers });
    }
    if (!stream) {
      await runs.settled(record.id);
      return Response.json(responseObjectOf(log, context), { headers });
    }
    return streamResponse(
      log,
      context,
      { afterNativeSeq: before },
      http.accept,
      streamOptions(http.traceId, http.outgoing),
    );
  }

  /** Submit host results to a waiting response and answer with its continuation. */
  async function submit(
    user: User,
    mode: ResponsesMode,
    record: ResponseRecord,
    results: ToolResultInput[],
    stream: boolean,
    http: HttpContext,
  ): Promise<Response> {
    if (mode === 'plain') {
      // As OpenAI: every call of the pause needs its output in the request that answers it.
      const answered = new Set(results.map((result) => result.call_id));
      const open = openHostCalls(await store.listToolCalls(record.id));
      const missing = open.filter((call) => !answered.has(call.toolCallId));
      if (missing.length > 0 && missing.length < open.length)
        throw new HttpError(
          400,
          'invalid_request',
          `no tool output found for function call ${missing.map((call) => call.toolCallId).join(', ')}`,
        );
    }
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
    if (!resumed && mode === 'plain') {
      const callId = results.at(-1)?.call_id;
      if (callId !== undefined) return answerDuplicate(user, mode, record, callId, stream, http);
    }
    return continuation(user, mode, record, log, before, resumed, stream, http);
  }

  /** Decide on a response's pending confirmations (its `mcp_approval_request` items). */
  async function decideApprovals(
    user: User,
    mode: ResponsesMode,
    record: ResponseRecord,
    decisions: { toolCallId: string; approve: boolean }[],
    stream: boolean,
    http: HttpContext,
  ): Promise<Response> {
    const before = (await runs.logOf(user.id, record.id)).lastSeq;
    let log: RunLog | undefined;
    for (const decision of decisions)
      log = await runs.decide(
        user.id,
        record.id,
        decision.toolCallId,
        decision.approve ? 'approve' : 'reject',
      );
    const current = log ?? (await runs.logOf(user.id, record.id));
    const resumed = current.lastSeq > before && !current.paused;
    return continuation(user, mode, record, current, before, resumed, stream, http);
  }

  /** The approvals of a request that names its response, as decisions on its confirmations. */
  async function approvalsOf(record: ResponseRecord, history: InputHistory) {
    const log = await runs.logOf(record.userId, record.id);
    return history.approvals.map((approval) => {
      const named = parseItemId(approval.approval_request_id, 'mcpr');
      const card = log
        .snapshot()
        .message.blocks.find(
          (block) =>
            block.kind === 'confirm' && block.blockId === named?.blockId && named.runId === record.id,
        );
      if (card === undefined || card.kind !== 'confirm')
        throw new HttpError(
          400,
          'invalid_request',
          `unknown approval_request_id ${approval.approval_request_id}`,
        );
      return { toolCallId: card.toolCallId, approve: approval.approve };
    });
  }

  /**
   * A retried answer that was already taken: the response its first submission began, replayed whole
   * (plain shape; nothing runs again).
   */
  async function answerDuplicate(
    user: User,
    mode: ResponsesMode,
    record: ResponseRecord,
    callId: string,
    stream: boolean,
    http: HttpContext,
  ): Promise<Response> {
    const log = await runs.logOf(user.id, record.id);
    const context = contextOf(record);
    if (mode === 'extension') return continuation(user, mode, record, log, log.lastSeq, false, stream, http);
    const mapper = plainMapperOf(log, context);
    const stretch = mapper.stretch(mapper.resumedBy(callId) ?? '') ?? mapper.last;
    if (stretch === null)
      throw new HttpError(409, 'run_finished', 'the response no longer waits for this output');
    if (!stream)
      return Response.json(mapper.response(stretch), { headers: { 'x-request-id': http.traceId } });
    return streamPlainStretch(
      log,
      context,
      stretch,
      -1,
      http.accept,
      streamOptions(http.traceId, http.outgoing),
    );
  }

  /** Start a new run for the request's turn and answer with its stream or its object. */
  async function startResponse(
    user: User,
    mode: ResponsesMode,
    body: CreateResponseRequest,
    history: InputHistory,
    previous: ResponseRecord | undefined,
    transcript: string,
    text: string,
    http: HttpContext,
  ): Promise<Response> {
    if (text === '') throw new HttpError(400, 'invalid_request', 'input: needs a user message');
    const instructions = [body.instructions ?? '', ...instructionTexts(history), transcript]
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
      traceId: http.traceId,
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
      traceId: http.traceId,
      metadata: body.metadata ?? {},
    };
    await responses.save(record);
    const stream = body.stream ?? false;
    if (mode === 'plain') {
      if (!stream) {
        await runs.settled(log.runId);
        return Response.json(plainResponseOf(log, contextOf(record), log.runId), {
          headers: { 'x-request-id': http.traceId },
        });
      }
      return streamPlainFrom(
        log,
        contextOf(record),
        0,
        http.accept,
        streamOptions(http.traceId, http.outgoing),
      );
    }
    if (!stream) {
      await runs.settled(log.runId);
      return Response.json(responseObjectOf(log, contextOf(record)), {
        headers: { 'x-request-id': http.traceId },
      });
    }
    return streamResponse(
      log,
      contextOf(record),
      { afterSequence: -1 },
      http.accept,
      streamOptions(http.traceId, http.outgoing),
    );
  }

  app.post('/v1/responses', async (context) => {
    const user = context.get('user');
    const mode = responsesModeOf(context.req.header(EXTENSIONS_HEADER));
    const http: HttpContext = {
      traceId: context.get('traceId'),
      accept: context.req.header('accept'),
      outgoing: nodeResponseOf(context),
    };
    const body = await readJsonBody(bodyOf(context), CreateResponseSchema, RESPONSES_MAX_BODY_BYTES);
    const stream = body.stream ?? false;
    const history = readInputHistory(body.input);

    const previous = body.previous_response_id
      ? await ownedRecord(user, parseResponseId(body.previous_response_id).runId)
      : undefined;
    if (previous !== undefined) {
      if (history.outputs.length > 0) {
        // OpenAI-style clients answer a function call with a new request naming the previous response.
        if (history.trailingText !== '')
          throw new HttpError(400, 'invalid_request', 'send function_call_output items without new messages');
        return submit(user, mode, previous, history.outputs, stream, http);
      }
      if (history.approvals.length > 0)
        return decideApprovals(user, mode, previous, await approvalsOf(previous, history), stream, http);
      // The conversation already holds the history: only the new turn is new.
      return startResponse(user, mode, body, history, previous, '', history.trailingText, http);
    }
    if (history.outputs.length > 0 || history.approvals.length > 0) {
      const resolved = await resolveStatelessInput(store, responses, user, history);
      if (resolved.kind === 'submit')
        return submit(user, mode, resolved.record, resolved.outputs, stream, http);
      if (resolved.kind === 'decide')
        return decideApprovals(user, mode, resolved.record, resolved.decisions, stream, http);
      if (resolved.kind === 'duplicate')
        return answerDuplicate(user, mode, resolved.record, resolved.callId, stream, http);
      // The client moved on with a new message: the paused response will not get its outputs.
      if (resolved.kind === 'supersede') await runs.cancel(user.id, resolved.record.id, 'superseded');
    }
    if (!history.hasHistory)
      return startResponse(user, mode, body, history, undefined, '', history.trailingText, http);
    const trailing = history.trailingText !== '';
    return startResponse(
      user,
      mode,
      body,
      history,
      undefined,
      transcriptOf(history, trailing ? 'trailing' : 'marked'),
      trailing ? history.trailingText : lastUserText(history),
      http,
    );
  });

  app.post('/v1/responses/:id/tool_results', async (context) => {
    const user = context.get('user');
    const record = await ownedRecord(user, parseResponseId(context.req.param('id')).runId);
    const body = await readJsonBody(bodyOf(context), SubmitToolResultsSchema, RESPONSES_MAX_BODY_BYTES);
    const results = Array.isArray(body) ? body : body.tool_outputs;
    const stream = Array.isArray(body) ? context.req.query('stream') !== 'false' : body.stream !== false;
    return submit(user, responsesModeOf(context.req.header(EXTENSIONS_HEADER)), record, results, stream, {
      traceId: context.get('traceId'),
      accept: context.req.header('accept'),
      outgoing: nodeResponseOf(context),
    });
  });

  app.post('/v1/responses/:id/cancel', async (context) => {
    const user = context.get('user');
    const id = context.req.param('id');
    const record = await ownedRecord(user, parseResponseId(id).runId);
    const body = await readJsonBody(bodyOf(context), CancelResponseSchema);
    await runs.cancel(user.id, record.id, body.reason ?? 'user_stop');
    const log = await runs.logOf(user.id, record.id);
    if (responsesModeOf(context.req.header(EXTENSIONS_HEADER)) === 'plain')
      return context.json(plainObject(log, record, id));
    return context.json(responseObjectOf(log, contextOf(record)));
  });

  app.get('/v1/responses/:id', async (context) => {
    const user = context.get('user');
    const id = context.req.param('id');
    const record = await ownedRecord(user, parseResponseId(id).runId);
    const log = await runs.logOf(user.id, record.id);
    const plain = responsesModeOf(context.req.header(EXTENSIONS_HEADER)) === 'plain';
    if (context.req.query('stream') !== 'true')
      return context.json(plain ? plainObject(log, record, id) : responseObjectOf(log, contextOf(record)));
    const after = parseSequence(context.req.header('last-event-id') ?? context.req.query('starting_after'));
    const accept = context.req.header('accept');
    const options = streamOptions(context.get('traceId'), nodeResponseOf(context));
    if (plain) {
      const mapper = plainMapperOf(log, contextOf(record));
      const stretch = mapper.stretch(id) ?? (id === record.id ? mapper.last : null);
      if (stretch === null || stretch === undefined)
        throw new HttpError(404, 'not_found', 'no such response');
      return streamPlainStretch(log, contextOf(record), stretch, after, accept, options);
    }
    return streamResponse(log, contextOf(record), { afterSequence: after }, accept, options);
  });
}

/** A stretch's plain response, 404 when the run has no stretch of that id. */
function plainObject(log: RunLog, record: ResponseRecord, id: string) {
  const object = plainResponseOf(log, contextOf(record), id);
  if (object === undefined) throw new HttpError(404, 'not_found', 'no such response');
  return object;
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
