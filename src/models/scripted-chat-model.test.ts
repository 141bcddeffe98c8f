import { describe, expect, it } from 'vitest';
import { type ChatMessage, type ChatRequest, type ChatStreamPart, ModelError } from './chat-model.ts';
import { ScriptedChatModel } from './scripted-chat-model.ts';
import { reasoningDeltas, textDeltas, textTurn, toolCallParts, toolCallTurn } from './scripted-turns.ts';
import { turnProblems } from './test-support/turn-problems.ts';

async function collect(parts: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const collected: ChatStreamPart[] = [];
  for await (const part of parts) collected.push(part);
  return collected;
}

function request(content: string, signal?: AbortSignal): ChatRequest {
  return { messages: [{ role: 'user', content }], ...(signal === undefined ? {} : { signal }) };
}

describe('scripted turn builders', () => {
  it('builds a text turn with reasoning, cut into chunks by code point', () => {
    const parts = textTurn('您好😀!', {
      reasoning: 'Greet.',
      chunkSize: 2,
      usage: { inputTokens: 3, outputTokens: 4 },
    });
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'Gr' },
      { type: 'reasoning-delta', text: 'ee' },
      { type: 'reasoning-delta', text: 't.' },
      { type: 'text-delta', text: '您好' },
      { type: 'text-delta', text: '😀!' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 4 } },
    ]);
    expect(turnProblems(parts)).toEqual([]);
  });

  it('builds a tool call turn with start, deltas and end filled in, and fresh ids', () => {
    const parts = toolCallTurn(
      [
        { name: 'query_order', arguments: { orderId: 'NS-1042' } },
        { name: 'load_skill', arguments: '{"name":"cancel-order"}', id: 'call_fixed' },
      ],
      { reasoning: ['Look it up.'], text: 'Checking…', chunkSize: 8 },
    );
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.slice(0, 3)).toEqual([
      { type: 'reasoning-delta', text: 'Look it up.' },
      { type: 'text-delta', text: 'Checking' },
      { type: 'text-delta', text: '…' },
    ]);
    const ends = parts.filter((part) => part.type === 'tool-call-end');
    expect(ends).toMatchObject([
      { index: 0, name: 'query_order', arguments: '{"orderId":"NS-1042"}' },
      { index: 1, id: 'call_fixed', name: 'load_skill', arguments: '{"name":"cancel-order"}' },
    ]);
    expect(ends[0]?.type === 'tool-call-end' && ends[0].id).toMatch(/^call_\d+$/);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
    const again = toolCallTurn([{ name: 'query_order' }]);
    expect(again[0]).not.toEqual(parts.find((part) => part.type === 'tool-call-start'));
    expect(again.find((part) => part.type === 'tool-call-end')).toMatchObject({ arguments: '{}' });
  });

  it('composes parts by hand, for interleaved parallel calls', () => {
    const first = toolCallParts({ name: 'a', arguments: '{"x":1}', id: 'call_a' }, 0, 3);
    const second = toolCallParts({ name: 'b', arguments: '{"y":2}', id: 'call_b' }, 1, 3);
    const interleaved = [first[0], second[0], first[1], second[1], ...first.slice(2), ...second.slice(2)];
    const parts = [...reasoningDeltas(['hm']), ...textDeltas(''), ...(interleaved as ChatStreamPart[])];
    expect(turnProblems([...parts, { type: 'finish', reason: 'tool_calls' }])).toEqual([]);
  });
});

describe('ScriptedChatModel', () => {
  it('replays one turn per call, appends a missing finish, and records copies of the requests', async () => {
    const model = new ScriptedChatModel([
      [...toolCallParts({ name: 'query_order', arguments: '{}', id: 'call_1' })],
      [...textDeltas('Shipped.')],
    ]);
    expect(model.name).toBe('scripted');
    const messages: ChatMessage[] = [{ role: 'user', content: 'Where is my order?' }];
    const first = await collect(
      model.stream({ messages, tools: [{ name: 'query_order', description: 'd', parameters: {} }] }),
    );
    expect(first.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', name: 'query_order', arguments: '{}' }],
    });
    messages.push({ role: 'tool', toolCallId: 'call_1', content: '{"status":"shipped"}' });
    const second = await collect(model.stream({ messages }));
    expect(second).toEqual([
      { type: 'text-delta', text: 'Shipped.' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.messages).toHaveLength(1);
    expect(model.requests[0]?.tools?.[0]?.name).toBe('query_order');
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_1',
      content: '{"status":"shipped"}',
    });
    expect(model.remainingTurns).toBe(0);
  });

  it('streams parts nobody can change: the script replays the same however its consumer behaves', async () => {
    const turn = textTurn('已发货。');
    const model = new ScriptedChatModel([turn, turn]);
    const first = await collect(model.stream(request('订单呢？')));
    const part = first[0] as { text: string };
    expect(() => {
      part.text = 'changed';
    }).toThrow(TypeError);
    expect(await collect(model.stream(request('订单呢？')))).toEqual([
      { type: 'text-delta', text: '已发货。' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('builds a turn from the request when given a function', async () => {
    const model = new ScriptedChatModel([
      (received) => textTurn(`You said: ${received.messages.at(-1)?.content ?? ''}`),
    ]);
    expect(await collect(model.stream(request('退货政策？')))).toEqual([
      { type: 'text-delta', text: 'You said: 退货政策？' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('fails with a clear error when asked for more turns than scripted', async () => {
    const model = new ScriptedChatModel([textTurn('Only one.')], { name: 'novashop-test' });
    await collect(model.stream(request('first')));
    const failure = collect(model.stream(request('and again?')));
    await expect(failure).rejects.toBeInstanceOf(ModelError);
    await expect(failure).rejects.toThrow(
      'ScriptedChatModel "novashop-test": stream() was called for turn 2, but only 1 turn was scripted (last message of this request: user "and again?")',
    );
    expect(model.requests).toHaveLength(2);
  });

  it('fails mid-stream after failAt parts, with a default or a given error', async () => {
    const model = new ScriptedChatModel([
      { parts: textTurn(['a', 'b', 'c']), failAt: 2 },
      { parts: textTurn('x'), failAt: 0, error: new ModelError('model_auth', 'bad key') },
    ]);
    const delivered: ChatStreamPart[] = [];
    const broken = (async () => {
      for await (const part of model.stream(request('1'))) delivered.push(part);
    })();
    await expect(broken).rejects.toMatchObject({ code: 'model_stream_broken' });
    expect(delivered).toEqual([
      { type: 'text-delta', text: 'a' },
      { type: 'text-delta', text: 'b' },
    ]);
    await expect(collect(model.stream(request('2')))).rejects.toMatchObject({ code: 'model_auth' });
  });

  it('honours the abort signal during per-part delays', async () => {
    const model = new ScriptedChatModel([textTurn(['a', 'b', 'c'])], { delayMs: 20 });
    const controller = new AbortController();
    const reason = new Error('stop');
    const delivered: ChatStreamPart[] = [];
    const outcome = (async () => {
      for await (const part of model.stream(request('hi', controller.signal))) {
        delivered.push(part);
        controller.abort(reason);
      }
    })();
    await expect(outcome).rejects.toBe(reason);
    expect(delivered).toEqual([{ type: 'text-delta', text: 'a' }]);
    await expect(collect(model.stream(request('hi', AbortSignal.abort())))).rejects.toThrow();
  });

  it('rejects scripts that cannot be replayed', () => {
    expect(
      () =>
        new ScriptedChatModel([
          [
            { type: 'finish', reason: 'stop' },
            { type: 'text-delta', text: 'late' },
          ],
        ]),
    ).toThrow(/parts after its finish part/);
    expect(() => new ScriptedChatModel([{ parts: textTurn('x'), failAt: 5 }])).toThrow(
      /failAt must be an integer from 0 to 1/,
    );
  });
});

describe('turnProblems', () => {
  it('finds broken turns', () => {
    expect(
      turnProblems([
        { type: 'tool-call-delta', index: 0, id: 'c', argumentsDelta: '{' },
        { type: 'tool-call-start', index: 1, id: 'd', name: 'n' },
        { type: 'tool-call-end', index: 1, id: 'd', name: 'n', arguments: '{}' },
        { type: 'finish', reason: 'stop' },
      ]),
    ).toEqual([
      'part 0 (tool-call-delta): index 0 was never started',
      'part 2 (tool-call-end): arguments "{}" are not the deltas joined',
      'finish says stop after tool calls',
    ]);
    expect(turnProblems([{ type: 'text-delta', text: '' }])).toEqual([
      'part 0 (text-delta): empty delta',
      'the turn does not end with finish',
    ]);
  });
});
