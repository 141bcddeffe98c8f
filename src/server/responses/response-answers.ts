import type { RunLog, RunManager } from '../../runtime/index.ts';
import type { ResponseRecord, RunStore, User } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import type { RunInputService } from '../run-input/index.ts';
import type { StreamLogOptions } from '../stream-run.ts';
import type { InputHistory } from './input-history.ts';
import { parseItemId } from './plain-items.ts';
import { plainMapperOf, streamPlainFrom, streamPlainStretch } from './plain-stream-response.ts';
import { contextOf } from './response-context.ts';
import type { ResponsesMode } from './responses-mode.ts';
import { outputText } from './responses-request.ts';
import { openHostCalls } from './stateless-input.ts';
import { responseObjectOf, streamResponse } from './stream-response.ts';

/** What a route hands on about its request. */
export interface HttpContext {
  traceId: string;
  accept: string | undefined;
  /** How its streams are written (`streamLogOptionsOf`). */
  streaming: StreamLogOptions;
}

export type ToolResultInput = { call_id: string; output?: Parameters<typeof outputText>[0]; error?: string };

export interface ResponseAnswersOptions {
  store: RunStore;
  runs: RunManager;
  input: RunInputService;
}

/**
 * The answers to a request that answers a response (host outputs, approvals, a retry of either), in
 * either shape: the routes decide which response it answers, these write what comes back.
 */
export function responseAnswers(options: ResponseAnswersOptions) {
  const { store, runs, input } = options;

  /**
   * Answer with the continuation of a response an answer resumed (or not): in the extension shape
   * the same response from `response.resumed` on (202 with the object while other calls wait); in
   * the plain shape the new response the resume began.
   */
  async function continuation(
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
      return streamPlainFrom(log, context, before, http.accept, http.streaming);
    }
    if (!resumed) {
      // Other calls of the same turn are still unanswered: the response keeps waiting.
      return Response.json(responseObjectOf(log, context), { status: 202, headers });
    }
    if (!stream) {
      await runs.settled(record.id);
      return Response.json(responseObjectOf(log, context), { headers });
    }
    return streamResponse(log, context, { afterNativeSeq: before }, http.accept, http.streaming);
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
    // The response is named by id: every output goes to the runtime, which refuses those for calls
    // that do not wait and takes one it already has as a no-op.
    const {
      log,
      afterSeq: before,
      resumed,
    } = await input.submit(
      user.id,
      await input.runOf(user.id, record.id),
      results.map((result) =>
        result.error !== undefined
          ? { toolCallId: result.call_id, error: result.error }
          : { toolCallId: result.call_id, output: outputText(result.output ?? '') },
      ),
      { coverage: 'as-sent' },
    );
    if (mode === 'extension') return continuation(mode, record, log, before, resumed, stream, http);
    // Plain: a concurrent request may have resumed it with the same outputs; otherwise they were
    // all taken before (a retry): the response their first submission began is the answer.
    if (resumed || resumedAfter(log, before))
      return continuation(mode, record, log, before, true, stream, http);
    return answerDuplicate(user, mode, record, results.at(-1)?.call_id ?? '', stream, http);
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
    if (mode === 'plain') {
      // As with outputs: one request answers every approval request of the pause.
      const decided = new Set(decisions.map((decision) => decision.toolCallId));
      const waiting = (await store.listToolCalls(record.id)).filter(
        (call) =>
          call.effect === 'write' && call.status === 'awaiting_confirmation' && call.decision === null,
      );
      const missing = waiting.filter((call) => !decided.has(call.toolCallId));
      if (missing.length > 0 && missing.length < waiting.length)
        throw new HttpError(
          400,
          'invalid_request',
          `no mcp_approval_response found for the approval of ${missing.map((call) => call.name).join(', ')}`,
        );
    }
    const decided = await input.decide(
      user.id,
      await input.runOf(user.id, record.id),
      decisions.map((decision) => ({
        toolCallId: decision.toolCallId,
        decision: decision.approve ? 'approve' : 'reject',
      })),
      // The same decision again (a retried request): in the plain shape the response it began is the answer.
      { coverage: 'as-sent', retries: mode === 'plain' ? 'report' : 'refuse' },
    );
    if (decided.retried !== undefined)
      return answerDuplicate(user, mode, record, decided.retried, stream, http);
    const { log, afterSeq: before } = decided;
    return continuation(mode, record, log, before, resumedAfter(log, before), stream, http);
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
    if (mode === 'extension') return continuation(mode, record, log, log.lastSeq, false, stream, http);
    const mapper = plainMapperOf(log, context);
    const stretch = mapper.stretch(mapper.resumedBy(callId) ?? '') ?? mapper.last;
    if (stretch === null)
      throw new HttpError(409, 'run_finished', 'the response no longer waits for this output');
    if (!stream)
      return Response.json(mapper.response(stretch), { headers: { 'x-request-id': http.traceId } });
    return streamPlainStretch(log, context, stretch, -1, http.accept, http.streaming);
  }

  return { submit, decideApprovals, approvalsOf, answerDuplicate };
}

/** Whether the run resumed after native seq `before` (it may have paused again since). */
function resumedAfter(log: RunLog, before: number): boolean {
  for (let seq = before + 1; seq <= log.lastSeq; seq += 1)
    if (log.eventAt(seq)?.type === 'run.resumed') return true;
  return false;
}
