import { describe, expect, it } from 'vitest';
import { type ChatStreamPart, ModelError } from './chat-model.ts';
import { mapFinishReason, OpenAiChunkParser } from './openai-chunk-parser.ts';
import { turnProblems } from './test-support/turn-problems.ts';

function chunk(delta: Record<string, unknown>, finishReason: string | null = null, index = 0) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    choices: [{ index, delta, finish_reason: finishReason }],
  };
}

function toolChunk(fragment: Record<string, unknown>) {
  return chunk({ tool_calls: [fragment] });
}

function run(parser: OpenAiChunkParser, chunks: readonly unknown[]): ChatStreamPart[] {
  return [...chunks.flatMap((data) => parser.push(data)), ...parser.done()];
}

function thrown(action: () => unknown): ModelError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error('nothing was thrown');
}

describe('OpenAiChunkParser tool calls', () => {
  it('starts a call once, even when a server repeats id and name on every fragment (DashScope)', () => {
    const parts = run(new OpenAiChunkParser(), [
      toolChunk({
        index: 0,
        id: 'call_q',
        type: 'function',
        function: { name: 'query_order', arguments: '{"order' },
      }),
      toolChunk({
        index: 0,
        id: 'call_q',
        type: 'function',
        function: { name: 'query_order', arguments: 'Id":"NS-1"}' },
      }),
      toolChunk({ index: 0, id: '', type: 'function', function: { name: '', arguments: '' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.filter((part) => part.type === 'tool-call-start')).toHaveLength(1);
    expect(parts.at(-2)).toEqual({
      type: 'tool-call-end',
      index: 0,
      id: 'call_q',
      name: 'query_order',
      arguments: '{"orderId":"NS-1"}',
    });
  });

  it('holds argument pieces that arrive before the name and sends them right after the start', () => {
    const parts = run(new OpenAiChunkParser(), [
      toolChunk({ index: 0, id: 'call_x', function: { arguments: '{"a"' } }),
      toolChunk({ index: 0, function: { name: 'lookup', arguments: ':1}' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(parts).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_x', name: 'lookup' },
      { type: 'tool-call-delta', index: 0, id: 'call_x', argumentsDelta: '{"a"' },
      { type: 'tool-call-delta', index: 0, id: 'call_x', argumentsDelta: ':1}' },
      { type: 'tool-call-end', index: 0, id: 'call_x', name: 'lookup', arguments: '{"a":1}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('tells calls apart by id when a server leaves out index, and makes up missing ids', () => {
    let counter = 0;
    const parser = new OpenAiChunkParser({ createToolCallId: () => `call_made_${++counter}` });
    const parts = run(parser, [
      toolChunk({ id: 'call_1', function: { name: 'a', arguments: '{}' } }),
      toolChunk({ id: 'call_2', function: { name: 'b', arguments: '{"x"' } }),
      toolChunk({ function: { arguments: ':2}' } }),
      chunk({ tool_calls: [{ index: 2, function: { name: 'c', arguments: { y: 3 } } }] }),
      chunk({}, 'stop'),
    ]);
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.filter((part) => part.type === 'tool-call-end')).toEqual([
      { type: 'tool-call-end', index: 0, id: 'call_1', name: 'a', arguments: '{}' },
      { type: 'tool-call-end', index: 1, id: 'call_2', name: 'b', arguments: '{"x":2}' },
      { type: 'tool-call-end', index: 2, id: 'call_made_1', name: 'c', arguments: '{"y":3}' },
    ]);
    // `stop` with tool calls (vLLM, Ollama) is reported as tool_calls.
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
  });

  it('ends open calls at [DONE] when no finish_reason came', () => {
    const parts = run(new OpenAiChunkParser(), [
      toolChunk({ index: 0, id: 'c', function: { name: 'n', arguments: '{}' } }),
    ]);
    expect(parts.slice(-2)).toEqual([
      { type: 'tool-call-end', index: 0, id: 'c', name: 'n', arguments: '{}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('rejects, at the end, a call whose function was never named', () => {
    const unnamed = new OpenAiChunkParser();
    unnamed.push(toolChunk({ index: 0, id: 'call_c', function: { arguments: '{}' } }));
    unnamed.push(chunk({}, 'tool_calls'));
    expect(thrown(() => unnamed.done()).message).toContain(
      'never named the function of tool call 0 (call_c)',
    );
  });
});

describe('OpenAiChunkParser tool-call shapes', () => {
  const ends = (parts: readonly ChatStreamPart[]) => parts.filter((part) => part.type === 'tool-call-end');

  it('starts a new call for a new id at an index in use (Ollama sends every call at index 0)', () => {
    const parts = run(new OpenAiChunkParser(), [
      toolChunk({
        index: 0,
        id: 'call_a',
        function: { name: 'query_order', arguments: '{"orderId":"88235"}' },
      }),
      toolChunk({
        index: 0,
        id: 'call_b',
        function: { name: 'search_knowledge', arguments: '{"query":"退货政策"}' },
      }),
      chunk({}, 'tool_calls'),
    ]);
    expect(turnProblems(parts)).toEqual([]);
    expect(ends(parts)).toEqual([
      {
        type: 'tool-call-end',
        index: 0,
        id: 'call_a',
        name: 'query_order',
        arguments: '{"orderId":"88235"}',
      },
      {
        type: 'tool-call-end',
        index: 1,
        id: 'call_b',
        name: 'search_knowledge',
        arguments: '{"query":"退货政策"}',
      },
    ]);
  });

  it('follows later id-less fragments at a reused index to the newest call there', () => {
    const parts = run(new OpenAiChunkParser(), [
      toolChunk({ index: 0, id: 'call_a', function: { name: 'a', arguments: '{"x"' } }),
      toolChunk({ index: 0, function: { arguments: ':1}' } }),
      toolChunk({ index: 0, id: 'call_b', function: { name: 'b', arguments: '' } }),
      toolChunk({ index: 0, function: { arguments: '{"y":2}' } }),
      chunk({}, 'stop'),
    ]);
    expect(turnProblems(parts)).toEqual([]);
    expect(ends(parts).map((part) => part.type === 'tool-call-end' && [part.id, part.arguments])).toEqual([
      ['call_a', '{"x":1}'],
      ['call_b', '{"y":2}'],
    ]);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
  });

  it('takes a whole call in the finish chunk, and argument text that follows the finish reason', () => {
    const parts = run(new OpenAiChunkParser(), [
      chunk(
        { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'lookup', arguments: '{"sku":' } }] },
        'tool_calls',
      ),
      toolChunk({ index: 0, function: { arguments: '"W-1"}' } }),
      { choices: [], usage: { prompt_tokens: 9, completion_tokens: 4 } },
    ]);
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.slice(-2)).toEqual([
      { type: 'tool-call-end', index: 0, id: 'call_1', name: 'lookup', arguments: '{"sku":"W-1"}' },
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 9, outputTokens: 4 } },
    ]);
  });

  it('ignores empty and null argument pieces and a null function', () => {
    const parts = run(new OpenAiChunkParser(), [
      toolChunk({ index: 0, id: 'call_1', function: { name: 'lookup', arguments: null } }),
      toolChunk({ index: 0, function: { arguments: '' } }),
      toolChunk({ index: 0, function: null }),
      toolChunk({ index: 0, function: { arguments: '{}' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(parts).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'lookup' },
      { type: 'tool-call-delta', index: 0, id: 'call_1', argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0, id: 'call_1', name: 'lookup', arguments: '{}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('keeps the id that arrives after the name on the same call instead of starting another', () => {
    const parser = new OpenAiChunkParser({ createToolCallId: () => 'call_made' });
    const parts = run(parser, [
      toolChunk({ index: 0, function: { name: 'lookup', arguments: '{' } }),
      toolChunk({ index: 0, id: 'call_late', function: { arguments: '}' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(turnProblems(parts)).toEqual([]);
    expect(ends(parts)).toEqual([
      { type: 'tool-call-end', index: 0, id: 'call_made', name: 'lookup', arguments: '{}' },
    ]);
  });

  it('passes arguments that are not JSON through as written', () => {
    const parts = run(new OpenAiChunkParser(), [
      toolChunk({ index: 0, id: 'call_1', function: { name: 'lookup', arguments: '{"sku": W-1' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(ends(parts)).toEqual([
      { type: 'tool-call-end', index: 0, id: 'call_1', name: 'lookup', arguments: '{"sku": W-1' },
    ]);
  });
});

describe('OpenAiChunkParser chunks', () => {
  it('ignores other choices and empty deltas, and keeps the last usage', () => {
    const parser = new OpenAiChunkParser();
    const parts = run(parser, [
      {
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
        usage: null,
      },
      { choices: [{ index: 1, delta: { content: 'other choice' }, finish_reason: null }] },
      {
        choices: [{ index: 0, delta: { content: 'Hi' } }],
        usage: { prompt_tokens: 5, completion_tokens: 1 },
      },
      {
        choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 2 },
      },
    ]);
    expect(parser.finished).toBe(true);
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Hi' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 5, outputTokens: 2 } },
    ]);
  });

  it('reads usage details only where a provider reports them', () => {
    const finish = (usage: Record<string, unknown>) =>
      run(new OpenAiChunkParser(), [chunk({ content: 'Hi' }, 'stop'), { choices: [], usage }]).at(-1);
    // OpenAI, DashScope, OpenRouter.
    expect(
      finish({
        prompt_tokens: 1200,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 1024 },
        completion_tokens_details: { reasoning_tokens: 256 },
      }),
    ).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 1200, outputTokens: 300, reasoningTokens: 256, cachedInputTokens: 1024 },
    });
    // DeepSeek and SiliconFlow: the cache hit has its own field.
    expect(
      finish({
        prompt_tokens: 100,
        completion_tokens: 20,
        prompt_cache_hit_tokens: 64,
        prompt_cache_miss_tokens: 36,
      }),
    ).toMatchObject({ usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64 } });
    // A server that reports totals only: no details, not zeros.
    expect(finish({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 })).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 5, outputTokens: 2 },
    });
    // Half a usage is no usage.
    expect(finish({ prompt_tokens: 5 })).toEqual({ type: 'finish', reason: 'stop' });
  });

  it("reads Moonshot's usage inside the finishing choice, with its top-level cached_tokens", () => {
    const parts = run(new OpenAiChunkParser(), [
      chunk({ reasoning_content: '先想一下。' }),
      {
        choices: [
          {
            index: 0,
            delta: { content: '好的' },
            finish_reason: 'stop',
            usage: { prompt_tokens: 19, completion_tokens: 13, total_tokens: 32, cached_tokens: 16 },
          },
        ],
      },
    ]);
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: '先想一下。' },
      { type: 'text-delta', text: '好的' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 19, outputTokens: 13, cachedInputTokens: 16 } },
    ]);
  });

  it('rejects a chunk it cannot read', () => {
    const error = thrown(() => new OpenAiChunkParser().push({ choices: 'nope' }));
    expect(error.code).toBe('model_failed');
    expect(error.message).toContain('cannot read');
  });

  it.each([
    [{ message: 'Too many requests', type: 'rate_limit_error' }, 'model_rate_limited', true],
    [{ message: 'bad key', type: 'authentication_error' }, 'model_auth', false],
    [{ message: 'Overloaded', type: 'overloaded_error' }, 'model_unavailable', true],
    [{ message: 'Timeout upstream', code: '504' }, 'model_unavailable', true],
    [{ message: 'Context too long', code: 400 }, 'model_bad_request', false],
    [{ message: 'Something odd' }, 'model_failed', false],
    ['plain text error', 'model_failed', false],
  ])('classifies the error frame %j as %s', (error, code, retryable) => {
    const failure = thrown(() => new OpenAiChunkParser().push({ error }));
    expect(failure.code).toBe(code);
    expect(failure.retryable).toBe(retryable);
    expect(failure.message).toMatch(/^the provider reported an error in the stream: /);
  });

  it('maps finish reasons', () => {
    expect(mapFinishReason('stop', false)).toBe('stop');
    expect(mapFinishReason('stop', true)).toBe('tool_calls');
    expect(mapFinishReason(undefined, false)).toBe('stop');
    expect(mapFinishReason('function_call', false)).toBe('tool_calls');
    expect(mapFinishReason('length', true)).toBe('length');
    expect(mapFinishReason('content_filter', false)).toBe('content_filter');
    expect(mapFinishReason('insufficient_system_resource', false)).toBe('other');
  });
});
