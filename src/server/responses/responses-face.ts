import type { Context, Hono } from 'hono';
import type { ResolvedAgent, RunLog } from '../../runtime/index.ts';
import type { ResponseRecord, ResponseRecords, User } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import { bodyOf } from '../node-response-of.ts';
import { readJsonBody } from '../read-json-body.ts';
import type { FaceContext, FaceEnv, ServerFace } from '../server-face.ts';
import { streamLogOptionsOf } from '../stream-run.ts';
import {
  type InputHistory,
  instructionTexts,
  lastUserText,
  readInputHistory,
  transcriptOf,
} from './input-history.ts';
import {
  plainMapperOf,
  plainResponseOf,
  streamPlainFrom,
  streamPlainStretch,
} from './plain-stream-response.ts';
import { parseResponseId } from './plain-stretch.ts';
import { agentOfModel } from './response-agent.ts';
import { type HttpContext, responseAnswers } from './response-answers.ts';
import { contextOf } from './response-context.ts';
import { EXTENSIONS_HEADER, type ResponsesMode, responsesModeOf } from './responses-mode.ts';
import {
  CancelResponseSchema,
  type CreateResponseRequest,
  CreateResponseSchema,
  RESPONSES_MAX_BODY_BYTES,
  SubmitToolResultsSchema,
} from './responses-request.ts';
import { resolveStatelessInput } from './stateless-input.ts';
import { responseObjectOf, streamResponse } from './stream-response.ts';

/** A `model` naming another agent than its chain's is refused in OpenAI's shape, on that parameter. */
const MODEL_PARAM = { type: 'invalid_request_error', param: 'model' };

/**
 * The Streamable HTTP "responses" face (seed 004): start a response, let the host run its own tools
 * and submit their results in a new request, cancel, get, resume a stream. Every response is a run
 * of the same RunManager, event log and store as the chat API; this file only translates. `model`
 * names the agent (`response-agent.ts`), which each response reports as its `model`. `responses`
 * keeps what each response fixed when it started (its tools, instructions, chain).
 */
export function responsesFace(responses: ResponseRecords): ServerFace {
  return { name: 'responses', mount: (app, context) => mountResponses(app, context, responses) };
}

function mountResponses(
  app: Hono<FaceEnv>,
  { store, runs, input, heartbeatMs }: FaceContext,
  responses: ResponseRecords,
): void {
  const httpOf = (context: Context<FaceEnv>): HttpContext => ({
    traceId: context.get('traceId'),
    accept: context.req.header('accept'),
    streaming: streamLogOptionsOf(context, heartbeatMs),
  });

  async function ownedRecord(user: User, id: string): Promise<ResponseRecord> {
    const record = await responses.get(user.id, id);
    if (record === undefined) throw new HttpError(404, 'not_found', 'no such response');
    return record;
  }
  /**
   * The run's log, once `id` is known to name one of its responses: the run itself, or a
   * continuation `<runId>.<seq>` the run really had (404 otherwise, in either shape).
   */
  async function requireStretch(user: User, record: ResponseRecord, id: string): Promise<RunLog> {
    const log = await runs.logOf(user.id, record.id);
    if (
      parseResponseId(id).resumedSeq !== 0 &&
      plainMapperOf(log, contextOf(record)).stretch(id) === undefined
    )
      throw new HttpError(404, 'not_found', 'no such response');
    return log;
  }

  const { submit, decideApprovals, approvalsOf, answerDuplicate } = responseAnswers({ store, runs, input });

  /**
   * Start a new run for the request's turn and answer with its stream or its object: in `previous`'s
   * conversation, or in a new one of `agent` (which must be `previous`'s agent when there is one).
   */
  async function startResponse(
    user: User,
    mode: ResponsesMode,
    agent: ResolvedAgent,
    body: CreateResponseRequest,
    history: InputHistory,
    previous: ResponseRecord | undefined,
    transcript: string,
    text: string,
    http: HttpContext,
  ): Promise<Response> {
    if (text === '') throw new HttpError(400, 'invalid_request', 'input: needs a user message');
    const instructions = [body.instructions ?? '', ...instructionTexts(history)]
      .filter((part) => part !== '')
      .join('\n\n');
    // The model reads a stateless history with its instructions; the object echoes only the client's.
    const runInstructions = [instructions, transcript].filter((part) => part !== '').join('\n\n');
    const tools = (body.tools ?? []).map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters ?? { type: 'object', properties: {} },
    }));
    const options = {
      hostTools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? '',
        parameters: tool.parameters,
      })),
      ...(runInstructions === '' ? {} : { instructions: runInstructions }),
      traceId: http.traceId,
      face: 'responses' as const,
    };
    // In `previous`'s conversation, or a new one (made only once the turn passed its checks).
    const { conversationId, log } = await input.start(
      user.id,
      { conversationId: previous?.conversationId },
      { agentId: agent.id, text, options },
    );
    const record: ResponseRecord = {
      id: log.runId,
      userId: user.id,
      conversationId,
      createdAt: Date.now(),
      model: agent.id,
      instructions: instructions === '' ? null : instructions,
      tools,
      // As the client named it: in the plain shape a later response of the run (`<runId>.<seq>`).
      previousResponseId: previous === undefined ? null : (body.previous_response_id ?? previous.id),
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
      return streamPlainFrom(log, contextOf(record), 0, http.accept, http.streaming);
    }
    if (!stream) {
      await runs.settled(log.runId);
      return Response.json(responseObjectOf(log, contextOf(record)), {
        headers: { 'x-request-id': http.traceId },
      });
    }
    return streamResponse(log, contextOf(record), { afterSequence: -1 }, http.accept, http.streaming);
  }

  app.post('/v1/responses', async (context) => {
    const user = context.get('user');
    const mode = responsesModeOf(context.req.header(EXTENSIONS_HEADER));
    const http = httpOf(context);
    const body = await readJsonBody(bodyOf(context), CreateResponseSchema, RESPONSES_MAX_BODY_BYTES);
    const stream = body.stream ?? false;
    // Silently ignoring these would answer something else than asked.
    if (body.conversation !== undefined && body.conversation !== null)
      throw new HttpError(400, 'invalid_request', 'conversation is not supported; use previous_response_id');
    if (body.background === true)
      throw new HttpError(400, 'invalid_request', 'background is not supported; stream, or resume with GET');
    const history = readInputHistory(body.input);
    // Checked first: an unknown model must not cost a paused response its run (`supersede` below).
    const named = agentOfModel(runs, body.model);

    const previous = body.previous_response_id
      ? await ownedRecord(user, parseResponseId(body.previous_response_id).runId)
      : undefined;
    if (previous !== undefined) {
      // A chain keeps its agent: a `model` naming another is refused, whatever the request does.
      const agent = await input.agentOf(
        user.id,
        { conversationId: previous.conversationId },
        named?.id,
        MODEL_PARAM,
      );
      if (history.outputs.length > 0) {
        // OpenAI-style clients answer a function call with a new request naming the previous response.
        if (history.trailingText !== '')
          throw new HttpError(400, 'invalid_request', 'send function_call_output items without new messages');
        return submit(user, mode, previous, history.outputs, stream, http);
      }
      if (history.approvals.length > 0)
        return decideApprovals(user, mode, previous, await approvalsOf(previous, history), stream, http);
      // The conversation already holds the history: only the new turn is new.
      return startResponse(user, mode, agent, body, history, previous, '', history.trailingText, http);
    }
    if (history.outputs.length > 0 || history.approvals.length > 0) {
      const resolved = await resolveStatelessInput(store, responses, user, history);
      // Answers to a response continue its chain, of its agent.
      if (resolved.kind === 'submit' || resolved.kind === 'decide' || resolved.kind === 'duplicate')
        await input.agentOf(
          user.id,
          { conversationId: resolved.record.conversationId },
          named?.id,
          MODEL_PARAM,
        );
      if (resolved.kind === 'submit')
        return submit(user, mode, resolved.record, resolved.outputs, stream, http);
      if (resolved.kind === 'decide')
        return decideApprovals(user, mode, resolved.record, resolved.decisions, stream, http);
      if (resolved.kind === 'duplicate')
        return answerDuplicate(user, mode, resolved.record, resolved.callId, stream, http);
      // The client moved on with a new message: the paused response will not get its outputs.
      if (resolved.kind === 'supersede') await runs.cancel(user.id, resolved.record.id, 'superseded');
    }
    const agent = named ?? runs.agent();
    if (!history.hasHistory)
      return startResponse(user, mode, agent, body, history, undefined, '', history.trailingText, http);
    const trailing = history.trailingText !== '';
    return startResponse(
      user,
      mode,
      agent,
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
    return submit(
      user,
      responsesModeOf(context.req.header(EXTENSIONS_HEADER)),
      record,
      results,
      stream,
      httpOf(context),
    );
  });

  app.post('/v1/responses/:id/cancel', async (context) => {
    const user = context.get('user');
    const id = context.req.param('id');
    const record = await ownedRecord(user, parseResponseId(id).runId);
    const body = await readJsonBody(bodyOf(context), CancelResponseSchema);
    // An id naming a response the run never had is refused before anything is stopped.
    await requireStretch(user, record, id);
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
    const log = await requireStretch(user, record, id);
    // A browser EventSource cannot send headers: `?extensions=1` asks for the extension shape too.
    const plain =
      responsesModeOf(context.req.header(EXTENSIONS_HEADER) ?? context.req.query('extensions')) === 'plain';
    if (context.req.query('stream') !== 'true')
      return context.json(plain ? plainObject(log, record, id) : responseObjectOf(log, contextOf(record)));
    const after = parseSequence(context.req.header('last-event-id') ?? context.req.query('starting_after'));
    const accept = context.req.header('accept');
    const options = streamLogOptionsOf(context, heartbeatMs);
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
