import { describe, expect, it } from 'vitest';
import { SseLineParser, type SseMessage } from '../protocol/index.ts';
import {
  AnthropicTurnReader,
  anthropicStreamError,
  mapAnthropicStopReason,
} from './anthropic-turn-reader.ts';
import { type ChatStreamPart, ModelError } from './chat-model.ts';
import {
  PARALLEL_TOOL_USE,
  REDACTED_DATA,
  REDACTED_THINKING,
  THINKING_SIGNATURE,
  THINKING_TEXT,
  THINKING_TOOL_USE,
  UNSIGNED_THINKING_TOOL_USE,
} from './test-support/anthropic-assembled-streams.ts';
import {
  anthropicEvent,
  BASIC_TEXT,
  framesOf,
  MAX_TOKENS_IN_TOOL_INPUT,
  REFUSAL,
  TOOL_USE,
  USAGE_IN_MESSAGE_DELTA,
  WEB_SEARCH,
} from './test-support/anthropic-recordings.ts';
import { turnProblems } from './test-support/turn-problems.ts';

const ENDPOINT = 'https://api.anthropic.com/v1/messages';

function messagesOf(recording: string): SseMessage[] {
  return new SseLineParser().push(framesOf(recording).join(''));
}

/** Every part of a recorded turn, `end()` included, as the transport would deliver them. */
function readTurn(recording: string): ChatStreamPart[] {
  const reader = new AnthropicTurnReader(ENDPOINT);
  const parts: ChatStreamPart[] = [];
  for (const message of messagesOf(recording)) {
    parts.push(...reader.read(message));
    if (reader.complete) break;
  }
  parts.push(...reader.end());
  return parts;
}

function failureOf(action: () => unknown): ModelError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error('expected a ModelError');
}

describe('AnthropicTurnReader', () => {
  it('reads plain text, skips pings, completes at message_stop and reports usage', () => {
    const reader = new AnthropicTurnReader(ENDPOINT);
    const messages = messagesOf(BASIC_TEXT);
    const parts = messages.flatMap((message) => reader.read(message));
    expect(reader.complete).toBe(true);
    expect([...parts, ...reader.end()]).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ' there' },
      { type: 'text-delta', text: '!' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 11, outputTokens: 6 } },
    ]);
  });

  it('turns thinking into reasoning deltas closed by its signature, then the tool call', () => {
    const parts = readTurn(THINKING_TOOL_USE);
    expect(turnProblems(parts)).toEqual([]);
    const argumentsText = '{"location": "Paris"}';
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: THINKING_TEXT[0] },
      { type: 'reasoning-delta', text: THINKING_TEXT[1] },
      { type: 'reasoning-signature', signature: THINKING_SIGNATURE },
      { type: 'tool-call-start', index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', argumentsDelta: '{"locati' },
      { type: 'tool-call-delta', index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', argumentsDelta: 'on": "P' },
      { type: 'tool-call-delta', index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', argumentsDelta: 'ar' },
      { type: 'tool-call-delta', index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', argumentsDelta: 'is"}' },
      {
        type: 'tool-call-end',
        index: 0,
        id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
        name: 'get_weather',
        arguments: argumentsText,
      },
      {
        type: 'finish',
        reason: 'tool_calls',
        // input_tokens leaves the cache out: 472 + 2000 read + 100 written.
        usage: { inputTokens: 2572, outputTokens: 312, reasoningTokens: 190, cachedInputTokens: 2000 },
      },
    ]);
  });

  it('numbers the calls of one turn itself, whatever the content block index', () => {
    const parts = readTurn(PARALLEL_TOOL_USE);
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.filter((part) => part.type === 'tool-call-end')).toEqual([
      {
        type: 'tool-call-end',
        index: 0,
        id: 'toolu_01WeatherSF',
        name: 'get_weather',
        arguments: '{"location": "San Francisco, CA"}',
      },
      {
        type: 'tool-call-end',
        index: 1,
        id: 'toolu_01TimeSF',
        name: 'get_time',
        arguments: '{"timezone": "America/Los_Angeles"}',
      },
    ]);
    expect(parts[0]).toEqual({
      type: 'text-delta',
      text: "I'll check the weather and the time in San Francisco.",
    });
  });

  it('passes a redacted_thinking block on whole, before the signed thinking that follows it', () => {
    const parts = readTurn(REDACTED_THINKING);
    expect(parts.slice(0, 4)).toEqual([
      { type: 'reasoning-redacted', data: REDACTED_DATA },
      { type: 'reasoning-delta', text: 'Let me analyze this step by step...' },
      { type: 'reasoning-signature', signature: THINKING_SIGNATURE },
      { type: 'text-delta', text: 'Based on my analysis...' },
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 90, outputTokens: 240 },
    });
  });

  it('sends no signature part for an empty signature (Qwen)', () => {
    const parts = readTurn(UNSIGNED_THINKING_TOOL_USE);
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.map((part) => part.type)).toEqual([
      'reasoning-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'finish',
    ]);
  });

  it('maps a refusal to content_filter and reads thinking_tokens from the final usage', () => {
    expect(readTurn(REFUSAL)).toEqual([
      {
        type: 'finish',
        reason: 'content_filter',
        usage: { inputTokens: 20, outputTokens: 120, reasoningTokens: 67 },
      },
    ]);
  });

  it('takes usage reported only in message_delta, cache counts included', () => {
    expect(readTurn(USAGE_IN_MESSAGE_DELTA).at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 19, outputTokens: 1, cachedInputTokens: 5 },
    });
  });

  it('ends a tool call cut off by max_tokens with the arguments it got, as a length finish', () => {
    const parts = readTurn(MAX_TOKENS_IN_TOOL_INPUT);
    expect(turnProblems(parts)).toEqual([]);
    const end = parts.find((part) => part.type === 'tool-call-end');
    expect(end).toMatchObject({ index: 0, id: 'toolu_01EKqbqmZrGRXy18eN7m9kvY', name: 'make_file' });
    expect(end?.type === 'tool-call-end' && end.arguments.startsWith('{"filename": "taxes.txt", ')).toBe(
      true,
    );
    expect(() => JSON.parse(end?.type === 'tool-call-end' ? end.arguments : '')).toThrow();
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      reason: 'length',
      usage: { inputTokens: 450, outputTokens: 124, cachedInputTokens: 0 },
    });
  });

  it('ignores server tools and their input, and takes the input count message_delta repeats', () => {
    const parts = readTurn(WEB_SEARCH);
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.every((part) => part.type === 'text-delta' || part.type === 'finish')).toBe(true);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 10682, outputTokens: 510, cachedInputTokens: 0 },
    });
  });

  it('reads the recorded tool_use stream whole', () => {
    const parts = readTurn(TOOL_USE);
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      reason: 'tool_calls',
      usage: { inputTokens: 377, outputTokens: 65, cachedInputTokens: 0 },
    });
  });

  it('refuses to call a turn complete before message_stop, so a cut answer is never final', () => {
    const frames = framesOf(BASIC_TEXT);
    const reader = new AnthropicTurnReader(ENDPOINT);
    for (const message of new SseLineParser().push(frames.slice(0, 5).join(''))) reader.read(message);
    expect(reader.complete).toBe(false);
    const error = failureOf(() => reader.end());
    expect(error.code).toBe('model_stream_broken');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('api.anthropic.com/v1/messages');
    expect(error.message).toContain('message_stop');
  });

  it('throws the in-stream error by its type: overloaded and rate limits may pass, bad requests not', () => {
    const reader = new AnthropicTurnReader(ENDPOINT);
    const [overloaded] = new SseLineParser().push(
      anthropicEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    const error = failureOf(() => reader.read(overloaded as SseMessage));
    expect(error).toMatchObject({ code: 'model_unavailable', retryable: true });
    expect(error.message).toBe('the provider reported an error in the stream: overloaded_error: Overloaded');

    expect(anthropicStreamError({ type: 'rate_limit_error', message: 'slow down' })).toMatchObject({
      code: 'model_rate_limited',
      retryable: true,
    });
    expect(anthropicStreamError({ type: 'api_error', message: 'oops' })).toMatchObject({ retryable: true });
    expect(anthropicStreamError({ type: 'invalid_request_error', message: 'bad' })).toMatchObject({
      code: 'model_bad_request',
      retryable: false,
    });
    expect(anthropicStreamError({ type: 'authentication_error', message: 'no' })).toMatchObject({
      code: 'model_auth',
    });
    expect(anthropicStreamError({ type: 'billing_error', message: 'pay' })).toMatchObject({
      code: 'model_failed',
      retryable: false,
    });
  });

  it('reads an OpenAI-style error object a gateway sends as well', () => {
    const reader = new AnthropicTurnReader(ENDPOINT);
    const error = failureOf(() =>
      reader.read({
        event: 'message',
        data: '{"error":{"type":"overloaded_error","message":"busy"}}',
        lastEventId: '',
      }),
    );
    expect(error).toMatchObject({ code: 'model_unavailable', retryable: true });
  });

  it('ignores unknown events and delta types, and fails on frames it cannot read', () => {
    const reader = new AnthropicTurnReader(ENDPOINT);
    const read = (data: string, event = 'message') => reader.read({ event, data, lastEventId: '' });
    expect(read('{"type":"future_event","payload":1}')).toEqual([]);
    expect(
      read('{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'),
    ).toEqual([]);
    expect(
      read('{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}'),
    ).toEqual([]);
    expect(failureOf(() => read('not json')).code).toBe('model_failed');
    expect(failureOf(() => read('{"type":"content_block_delta","index":"zero"}')).code).toBe('model_failed');
    expect(
      failureOf(() =>
        read(
          '{"type":"content_block_delta","index":7,"delta":{"type":"input_json_delta","partial_json":"{"}}',
        ),
      ).message,
    ).toContain('not a tool_use block');
  });

  it('reports no usage when the provider reports none', () => {
    const recording = [
      anthropicEvent({
        type: 'message_start',
        message: { id: 'msg_01', type: 'message', role: 'assistant' },
      }),
      anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Hi' } }),
      anthropicEvent({ type: 'content_block_stop', index: 0 }),
      anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn' } }),
      anthropicEvent({ type: 'message_stop' }),
    ].join('');
    expect(readTurn(recording)).toEqual([
      { type: 'text-delta', text: 'Hi' },
      { type: 'finish', reason: 'stop' },
    ]);
    // A compatible server that reports only the output count: no usage rather than zero input.
    const outputOnly = recording.replace(
      '"delta":{"stop_reason":"end_turn"}',
      '"delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}',
    );
    expect(outputOnly).not.toBe(recording);
    expect(readTurn(outputOnly).at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });
});

describe('mapAnthropicStopReason', () => {
  it('maps every documented stop reason', () => {
    expect(mapAnthropicStopReason('end_turn', false)).toBe('stop');
    expect(mapAnthropicStopReason('stop_sequence', false)).toBe('stop');
    expect(mapAnthropicStopReason('end_turn', true)).toBe('tool_calls');
    expect(mapAnthropicStopReason('tool_use', true)).toBe('tool_calls');
    expect(mapAnthropicStopReason('tool_use', false)).toBe('other');
    expect(mapAnthropicStopReason('max_tokens', true)).toBe('length');
    expect(mapAnthropicStopReason('model_context_window_exceeded', false)).toBe('length');
    expect(mapAnthropicStopReason('refusal', false)).toBe('content_filter');
    expect(mapAnthropicStopReason('pause_turn', false)).toBe('other');
    expect(mapAnthropicStopReason(undefined, false)).toBe('stop');
    expect(mapAnthropicStopReason('something_new', false)).toBe('other');
  });
});
