import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { Response as OpenAIResponse, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import type { LoggedRunEvent, RunEventDraft } from '../../protocol/index.ts';
import { RunLog } from '../../runtime/index.ts';
import { PlainResponsesMapper } from './plain-responses-mapper.ts';
import { parseResponseId, stretchResponseId } from './plain-stretch.ts';
import type { ResponsesStreamEvent } from './responses-event-mapper.ts';
import { AFTER_PAUSE, CONTEXT, ended, text, UNTIL_PAUSE } from './test-support/responses-fixture.ts';

function logged(drafts: readonly RunEventDraft[], log = new RunLog('run_1')): LoggedRunEvent[] {
  return drafts.map((draft) => log.append(draft));
}

function mapAll(events: readonly LoggedRunEvent[], mapper = new PlainResponsesMapper(CONTEXT)) {
  return { mapper, out: events.flatMap((event) => mapper.push(event)) };
}

/** Cuts a plain event list into its responses (each starts with `response.created`). */
function perResponse(events: readonly ResponsesStreamEvent[]): ResponsesStreamEvent[][] {
  const groups: ResponsesStreamEvent[][] = [];
  for (const event of events) {
    if (event.type === 'response.created') groups.push([]);
    groups.at(-1)?.push(event);
  }
  return groups;
}

/** The openai SDK's own fold, which throws on any event type it does not know. */
function fold(events: readonly ResponsesStreamEvent[]): OpenAIResponse {
  let snapshot: OpenAIResponse | undefined;
  for (const event of events)
    snapshot = accumulateResponse(event as unknown as ResponseStreamEvent, snapshot);
  if (snapshot === undefined) throw new Error('no events');
  return snapshot;
}

/** A write the owner confirms: a card, a pause, the approval, the write, an answer. */
const CONFIRMED_WRITE: RunEventDraft[] = [
  { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
  {
    type: 'block.started',
    blockId: 'blk_1',
    kind: 'tool',
    toolCallId: 'call_w',
    name: 'cancel_order',
    title: '取消订单',
  },
  { type: 'block.delta', blockId: 'blk_1', text: '{"orderId":"88235"}' },
  { type: 'block.updated', blockId: 'blk_1', kind: 'tool', toolCallId: 'call_w', args: { orderId: '88235' } },
  {
    type: 'block.updated',
    blockId: 'blk_1',
    kind: 'tool',
    toolCallId: 'call_w',
    status: 'awaiting_confirmation',
  },
  {
    type: 'block.started',
    blockId: 'blk_2',
    kind: 'confirm',
    toolCallId: 'call_w',
    title: '取消订单',
    description: '订单 88235',
    details: [{ label: '订单号', value: '88235' }],
  },
  {
    type: 'run.paused',
    reason: 'confirmation',
    pending: [{ toolCallId: 'call_w', name: 'cancel_order', args: { orderId: '88235' } }],
  },
  {
    type: 'block.updated',
    blockId: 'blk_2',
    kind: 'confirm',
    status: 'approved',
    decision: { decision: 'approve', decidedAt: 1 },
  },
  ended('blk_2'),
  { type: 'run.resumed', reason: 'confirmation', toolCallIds: ['call_w'] },
  { type: 'block.updated', blockId: 'blk_1', kind: 'tool', toolCallId: 'call_w', status: 'running' },
  {
    type: 'block.updated',
    blockId: 'blk_1',
    kind: 'tool',
    toolCallId: 'call_w',
    status: 'done',
    result: { cancelled: true },
  },
  ended('blk_1'),
  ...text('blk_3', 'answer', ['Cancelled.']),
  { type: 'run.finished', status: 'completed' },
];

describe('PlainResponsesMapper', () => {
  it('cuts the run into responses at its pauses, each numbered from 0, deterministic, and folded by the openai SDK', () => {
    const events = logged([...UNTIL_PAUSE, ...AFTER_PAUSE]);
    const { out, mapper } = mapAll(events);
    expect(JSON.stringify(mapAll(events).out)).toBe(JSON.stringify(out));
    const [first, second] = perResponse(out);
    if (first === undefined || second === undefined) throw new Error('expected two responses');
    for (const group of [first, second])
      expect(group.map((event) => event.sequence_number)).toEqual(group.map((_, index) => index));

    const resumedSeq = events.find((event) => event.type === 'run.resumed')?.seq ?? -1;
    const firstResponse = fold(first);
    const secondResponse = fold(second);
    expect(firstResponse).toMatchObject({ id: 'run_1', status: 'completed', output_text: 'Let me check.' });
    expect(firstResponse.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'mcp_call',
      'function_call',
    ]);
    expect(firstResponse.output[2]).toEqual({
      type: 'mcp_call',
      id: 'mcp_run_1.blk_3',
      server_label: 'runstream',
      name: 'query_order',
      arguments: '{"limit":10}',
      output: '{"orders":[]}',
      error: null,
      status: 'completed',
      approval_request_id: null,
    });
    expect(firstResponse.output[3]).toEqual({
      type: 'function_call',
      id: 'fc_run_1.blk_4',
      call_id: 'call_r',
      name: 'read_file',
      arguments: '{"path":"notes.txt"}',
      status: 'completed',
    });
    expect(secondResponse).toMatchObject({
      id: stretchResponseId('run_1', resumedSeq),
      previous_response_id: 'run_1',
      status: 'completed',
      output_text: 'It says: Buy milk.',
      // Each response counts its own model calls, as OpenAI's do; details it requires, 0 if unknown.
      usage: {
        input_tokens: 4,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 2,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 6,
      },
    });
    expect(firstResponse.usage).toEqual({
      input_tokens: 6,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 9,
    });
    expect(secondResponse.output.map((item) => item.type)).toEqual(['message']);
    // What the mapper answers for GET is what the stream folds to.
    expect(mapper.response(mapper.stretch('run_1') ?? fail())).toEqual(firstResponse);
    expect(mapper.response(mapper.stretch(secondResponse.id) ?? fail())).toEqual(secondResponse);
    expect(mapper.resumedBy('call_r')).toBe(secondResponse.id);
    expect(parseResponseId(secondResponse.id)).toEqual({ runId: 'run_1', resumedSeq });
    expect(parseResponseId('run_1')).toEqual({ runId: 'run_1', resumedSeq: 0 });
    // No event type of runstream's own.
    expect(out.every((event) => !event.type.startsWith('runstream.'))).toBe(true);
  });

  it('shows a confirmation as an mcp_approval_request, and the approved write in the next response', () => {
    const { out } = mapAll(logged(CONFIRMED_WRITE));
    const [waiting, approved] = perResponse(out).map(fold);
    expect(waiting?.output).toEqual([
      {
        type: 'mcp_approval_request',
        id: 'mcpr_run_1.blk_2',
        server_label: 'runstream',
        name: 'cancel_order',
        arguments: '{"orderId":"88235"}',
      },
    ]);
    expect(approved?.output[0]).toMatchObject({
      type: 'mcp_call',
      name: 'cancel_order',
      status: 'completed',
      approval_request_id: 'mcpr_run_1.blk_2',
      output: '{"cancelled":true}',
    });
    expect(approved?.output_text).toBe('Cancelled.');
  });

  it('ends a cancelled response with response.incomplete, a failed one with response.failed, and shows an error as a message', () => {
    const cancelled = mapAll(
      logged([
        { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
        { type: 'block.started', blockId: 'blk_1', kind: 'answer' },
        { type: 'block.delta', blockId: 'blk_1', text: 'Half' },
        ended('blk_1', 'cancelled'),
        { type: 'run.finished', status: 'cancelled', reason: 'user_stop' },
      ]),
    ).out;
    expect(cancelled.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'cancelled', cancel_reason: 'user_stop', output_text: 'Half' },
    });
    expect(fold(cancelled).output[0]).toMatchObject({ type: 'message', status: 'incomplete' });

    const failed = mapAll(
      logged([
        { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
        ...text('blk_1', 'error', ['The model is unavailable.']),
        { type: 'run.finished', status: 'failed', error: { code: 'model_failed', message: 'down' } },
      ]),
    ).out;
    const folded = fold(failed);
    expect(failed.at(-1)?.type).toBe('response.failed');
    expect(folded).toMatchObject({ status: 'failed', error: { code: 'model_failed' } });
    expect(folded.output).toEqual([
      {
        type: 'message',
        id: 'msg_run_1.blk_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'The model is unavailable.', annotations: [] }],
      },
    ]);
  });

  it('falls back to a snapshot: one response with the items whole, ended as the run stands', () => {
    const log = new RunLog('run_1', { capacity: 2 });
    logged(UNTIL_PAUSE, log);
    const replay = log.since(0);
    if (!('snapshot' in replay)) throw new Error('expected a snapshot');
    const mapper = new PlainResponsesMapper(CONTEXT);
    const out = mapper.push(replay.snapshot);
    const folded = fold(out);
    expect(folded).toMatchObject({ id: 'run_1', status: 'completed' });
    expect(folded.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'mcp_call',
      'function_call',
    ]);
    const live = logged(AFTER_PAUSE, log).flatMap((event) => mapper.push(event));
    expect(fold(live)).toMatchObject({ previous_response_id: 'run_1', output_text: 'It says: Buy milk.' });
  });
});

function fail(): never {
  throw new Error('missing stretch');
}
