import { describe, expect, it } from 'vitest';
import type { LoggedRunEvent, RunEventDraft } from '../../protocol/index.ts';
import { RunLog } from '../../runtime/index.ts';
import { ResponsesEventMapper, type ResponsesStreamEvent } from './responses-event-mapper.ts';
import { AFTER_PAUSE, CONTEXT, ended, text, UNTIL_PAUSE } from './test-support/responses-fixture.ts';

function logged(drafts: readonly RunEventDraft[], log = new RunLog('run_1')): LoggedRunEvent[] {
  return drafts.map((draft) => log.append(draft));
}

function mapAll(events: readonly LoggedRunEvent[], mapper = new ResponsesEventMapper(CONTEXT)) {
  return { mapper, out: events.flatMap((event) => mapper.push(event)) };
}

const typesOf = (events: readonly ResponsesStreamEvent[]) => events.map((event) => event.type);

describe('ResponsesEventMapper', () => {
  it('is deterministic: the same log gives the same events, numbered 0, 1, 2 … without gaps', () => {
    const events = logged([...UNTIL_PAUSE, ...AFTER_PAUSE]);
    const first = mapAll(events);
    const second = mapAll(events);
    expect(JSON.stringify(second.out)).toBe(JSON.stringify(first.out));
    expect(second.mapper.response()).toEqual(first.mapper.response());
    expect(first.out.map((event) => event.sequence_number)).toEqual(first.out.map((_, index) => index));
    expect(first.mapper.nextSequenceNumber).toBe(first.out.length);

    // A replay cut anywhere continues with exactly the events after the cut.
    const cut = mapAll(events.slice(0, 17));
    const rest = events.slice(17).flatMap((event) => cut.mapper.push(event));
    expect([...cut.out, ...rest]).toEqual(first.out);
    expect(first.mapper.response().status).toBe('completed');
  });

  it('names items after their blocks and streams the OpenAI events of each kind', () => {
    const { out, mapper } = mapAll(logged(UNTIL_PAUSE));
    const added = out.filter((event) => event.type === 'response.output_item.added');
    expect(added.map((event) => [event.output_index, (event.item as { id: string }).id])).toEqual([
      [0, 'rs_blk_1'],
      [1, 'msg_blk_2'],
      [2, 'tc_blk_3'],
      [3, 'fc_blk_4'],
    ]);
    // Text items start empty; their part comes in content_part.added, as OpenAI streams them.
    expect(added[1]?.item).toEqual({
      type: 'message',
      id: 'msg_blk_2',
      role: 'assistant',
      status: 'in_progress',
      content: [],
    });
    expect(typesOf(out).slice(0, 9)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
    ]);
    expect(
      out.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta),
    ).toEqual(['Let me ', 'check.']);
    expect(out.find((event) => event.type === 'response.output_text.done')).toMatchObject({
      item_id: 'msg_blk_2',
      output_index: 1,
      content_index: 0,
      text: 'Let me check.',
    });
    expect(out.at(-1)).toMatchObject({
      type: 'response.requires_action',
      response: {
        status: 'requires_action',
        required_action: {
          type: 'submit_tool_outputs',
          tool_calls: [{ call_id: 'call_r', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
        },
      },
    });
    expect(mapper.response().output.map((item) => item.id)).toEqual([
      'rs_blk_1',
      'msg_blk_2',
      'tc_blk_3',
      'fc_blk_4',
    ]);
  });

  it('maps server tools to runstream_tool_call items with their own extension events', () => {
    const { out, mapper } = mapAll(logged(UNTIL_PAUSE));
    const ofTool = out.filter(
      (event) => event.item_id === 'tc_blk_3' || (event.item as { id?: string })?.id === 'tc_blk_3',
    );
    expect(typesOf(ofTool)).toEqual([
      'response.output_item.added',
      'runstream.tool_call.arguments.delta',
      'runstream.tool_call.arguments.delta',
      'runstream.output_item.updated',
      'runstream.output_item.updated',
      'runstream.output_item.updated',
      'response.output_item.done',
    ]);
    expect(mapper.response().output[2]).toEqual({
      type: 'runstream_tool_call',
      id: 'tc_blk_3',
      call_id: 'call_q',
      name: 'query_order',
      title: '订单查询',
      arguments: '{"limit":10}',
      status: 'done',
      output: { orders: [] },
    });
    // Only host tools are function calls: the server tool's deltas never look like one.
    const functionDeltas = out.filter((event) => event.type === 'response.function_call_arguments.delta');
    expect(functionDeltas.every((event) => event.item_id === 'fc_blk_4')).toBe(true);
  });

  it('finishes a host call once its arguments are valid, and says nothing more when its output arrives', () => {
    const events = logged([...UNTIL_PAUSE, ...AFTER_PAUSE]);
    const { out } = mapAll(events);
    const ofCall = out.filter(
      (event) => event.item_id === 'fc_blk_4' || (event.item as { id?: string })?.id === 'fc_blk_4',
    );
    expect(typesOf(ofCall)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ]);
    const resumedAt = typesOf(out).indexOf('response.resumed');
    expect(out[resumedAt - 1]?.type).toBe('response.requires_action');
    expect(out[resumedAt]).toMatchObject({ reason: 'tool_result', call_ids: ['call_r'] });
  });

  it('finishes a host call that fails right after its arguments as incomplete, with the failure', () => {
    const events = logged([
      { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
      {
        type: 'block.started',
        blockId: 'blk_1',
        kind: 'tool',
        toolCallId: 'call_r',
        name: 'read_file',
        title: 'read_file',
      },
      { type: 'block.delta', blockId: 'blk_1', text: '{"path":1}' },
      { type: 'block.updated', blockId: 'blk_1', kind: 'tool', toolCallId: 'call_r', args: { path: 1 } },
      {
        type: 'block.updated',
        blockId: 'blk_1',
        kind: 'tool',
        toolCallId: 'call_r',
        status: 'failed',
        error: { code: 'invalid_arguments', message: 'path: expected string' },
      },
      ended('blk_1'),
      ...text('blk_2', 'answer', ['Sorry.']),
      { type: 'run.finished', status: 'completed' },
    ]);
    const { out, mapper } = mapAll(events);
    expect(typesOf(out).slice(2, 6)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ]);
    expect(out[5]?.item).toMatchObject({
      type: 'function_call',
      status: 'incomplete',
      failure: { code: 'invalid_arguments', message: 'path: expected string' },
    });
    expect(typesOf(out)).not.toContain('runstream.output_item.updated');
    expect(typesOf(out)).not.toContain('response.requires_action');
    expect(mapper.response()).toMatchObject({ status: 'completed', required_action: null });
  });

  it('maps confirmation cards to runstream_confirmation items and a confirm required_action', () => {
    const pause: RunEventDraft[] = [
      { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
      {
        type: 'block.started',
        blockId: 'blk_1',
        kind: 'tool',
        toolCallId: 'call_c',
        name: 'cancel_order',
        title: '取消订单',
        args: { orderId: '88235' },
      },
      {
        type: 'block.updated',
        blockId: 'blk_1',
        kind: 'tool',
        toolCallId: 'call_c',
        status: 'awaiting_confirmation',
      },
      {
        type: 'block.started',
        blockId: 'blk_2',
        kind: 'confirm',
        toolCallId: 'call_c',
        title: '取消订单',
        description: '订单 88235 · Apple Watch Series 12',
        details: [{ label: '订单号', value: '88235' }],
      },
      {
        type: 'run.paused',
        reason: 'confirmation',
        pending: [{ toolCallId: 'call_c', name: 'cancel_order', args: { orderId: '88235' } }],
      },
    ];
    const log = new RunLog('run_1');
    const { out, mapper } = mapAll(logged(pause, log));
    expect(
      out.find((event) => (event.item as { type?: string })?.type === 'runstream_confirmation'),
    ).toMatchObject({
      type: 'response.output_item.added',
      output_index: 1,
      item: {
        type: 'runstream_confirmation',
        id: 'cf_blk_2',
        call_id: 'call_c',
        description: '订单 88235 · Apple Watch Series 12',
        status: 'pending',
      },
    });
    expect(mapper.response()).toMatchObject({
      status: 'requires_action',
      required_action: { type: 'confirm', tool_calls: [{ call_id: 'call_c', name: 'cancel_order' }] },
    });
    const approved = logged(
      [
        {
          type: 'block.updated',
          blockId: 'blk_2',
          kind: 'confirm',
          status: 'approved',
          decision: { decision: 'approve', decidedAt: 2 },
        },
        ended('blk_2'),
      ],
      log,
    ).flatMap((event) => mapper.push(event));
    expect(typesOf(approved)).toEqual(['runstream.output_item.updated', 'response.output_item.done']);
    expect(approved[0]?.item).toMatchObject({ type: 'runstream_confirmation', status: 'approved' });
  });

  it('passes hints on as runstream.hint and error blocks as runstream_error items', () => {
    const { out, mapper } = mapAll(
      logged([
        { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
        { type: 'run.hint', code: 'max_iterations', text: '已达到最大迭代次数' },
        ...text('blk_1', 'error', ['模型暂时不可用']),
        { type: 'run.finished', status: 'failed', error: { code: 'model_unavailable', message: 'down' } },
      ]),
    );
    expect(out).toContainEqual(
      expect.objectContaining({ type: 'runstream.hint', code: 'max_iterations', text: '已达到最大迭代次数' }),
    );
    expect(mapper.response().output).toEqual([
      { type: 'runstream_error', id: 'err_blk_1', status: 'completed', text: '模型暂时不可用' },
    ]);
  });

  it.each([
    [{ status: 'completed' } as const, 'response.completed', 'completed', null, null],
    [
      { status: 'cancelled', reason: 'user_stop' } as const,
      'response.cancelled',
      'cancelled',
      null,
      'user_stop',
    ],
    [
      { status: 'failed', error: { code: 'model_unavailable', message: 'down' } } as const,
      'response.failed',
      'failed',
      { code: 'model_unavailable', message: 'down' },
      null,
    ],
    [
      { status: 'interrupted', reason: 'server_restart' } as const,
      'response.failed',
      'failed',
      { code: 'interrupted', message: 'server_restart' },
      null,
    ],
  ])('ends run.finished %o with %s', (finished, type, status, error, cancelReason) => {
    const { out } = mapAll(
      logged([
        { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
        { type: 'run.finished', ...finished },
      ]),
    );
    expect(out.at(-1)).toMatchObject({
      type,
      response: { status, error, cancel_reason: cancelReason, required_action: null },
    });
  });

  it('reports the run usage once it waits or ends, and each step on runstream.step.finished', () => {
    const { mapper, out } = mapAll(logged([...UNTIL_PAUSE, ...AFTER_PAUSE]));
    expect(out.filter((event) => event.type === 'runstream.step.finished')).toEqual([
      {
        type: 'runstream.step.finished',
        sequence_number: expect.any(Number),
        step: 1,
        finish_reason: 'tool_calls',
        usage: {
          input_tokens: 6,
          input_tokens_details: { cached_tokens: 4 },
          output_tokens: 3,
          output_tokens_details: { reasoning_tokens: 2 },
          total_tokens: 9,
        },
      },
      // Details the provider did not report stay out of the step's usage.
      {
        type: 'runstream.step.finished',
        sequence_number: expect.any(Number),
        step: 2,
        finish_reason: 'stop',
        usage: { input_tokens: 4, output_tokens: 2, total_tokens: 6 },
      },
    ]);
    const usageOn = (type: string) =>
      (out.find((event) => event.type === type)?.response as { usage: unknown } | undefined)?.usage;
    expect(usageOn('response.created')).toBeNull();
    expect(usageOn('response.requires_action')).toEqual({
      input_tokens: 6,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 9,
    });
    expect(usageOn('response.resumed')).toBeNull();
    const total = {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 15,
    };
    expect(usageOn('response.completed')).toEqual(total);
    expect(mapper.response().usage).toEqual(total);
  });

  it('has no usage when no step reported any, and zeros only for details OpenAI requires', () => {
    const { mapper } = mapAll(
      logged([
        { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
        { type: 'step.finished', step: 1, finishReason: 'stop' },
        { type: 'run.finished', status: 'completed' },
      ]),
    );
    expect(mapper.response()).toMatchObject({ status: 'completed', usage: null });
    const counted = mapAll(
      logged([
        { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
        { type: 'step.finished', step: 1, finishReason: 'stop', usage: { inputTokens: 7, outputTokens: 1 } },
        { type: 'run.finished', status: 'completed', usage: { inputTokens: 7, outputTokens: 1 } },
      ]),
    );
    expect(counted.mapper.response().usage).toEqual({
      input_tokens: 7,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 1,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 8,
    });
  });

  it('falls back to a snapshot: the items come whole, then where the run stands, then live events', () => {
    const full = mapAll(logged([...UNTIL_PAUSE, ...AFTER_PAUSE]));
    // A log that no longer holds the start, as after a restart or a very long run.
    const log = new RunLog('run_1', { capacity: 2 });
    logged(UNTIL_PAUSE, log);
    const replay = log.since(0);
    if (!('snapshot' in replay)) throw new Error('expected a snapshot');
    const mapper = new ResponsesEventMapper(CONTEXT);
    const fromSnapshot = mapper.push(replay.snapshot);
    expect(typesOf(fromSnapshot)).toEqual([
      'response.created',
      'response.in_progress',
      ...['rs', 'msg', 'tc', 'fc'].flatMap(() => ['response.output_item.added', 'response.output_item.done']),
      'response.requires_action',
    ]);
    expect(fromSnapshot.map((event) => event.sequence_number)).toEqual(fromSnapshot.map((_, index) => index));
    expect(mapper.response()).toEqual(mapAll(logged(UNTIL_PAUSE)).mapper.response());

    const live = logged(AFTER_PAUSE, log).flatMap((event) => mapper.push(event));
    expect(typesOf(live)[0]).toBe('response.resumed');
    expect(live.at(-1)?.type).toBe('response.completed');
    expect(mapper.response()).toEqual(full.mapper.response());
  });

  it('ends a snapshot of a finished run with its terminal event', () => {
    const log = new RunLog('run_1', { capacity: 1 });
    logged([...UNTIL_PAUSE, ...AFTER_PAUSE], log);
    const replay = log.since(0);
    if (!('snapshot' in replay)) throw new Error('expected a snapshot');
    const out = new ResponsesEventMapper(CONTEXT).push(replay.snapshot);
    expect(out.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { status: 'completed', output_text: 'Let me check.It says: Buy milk.' },
    });
  });
});
