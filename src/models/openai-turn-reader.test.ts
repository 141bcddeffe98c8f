import { describe, expect, it } from 'vitest';
import type { SseMessage } from '../protocol/index.ts';
import { ModelError } from './chat-model.ts';
import { OpenAiTurnReader } from './openai-turn-reader.ts';

const ENDPOINT = 'https://user:pass@api.example.com/v1/chat/completions?key=secret';

function message(data: string, event = 'message'): SseMessage {
  return { event, data, lastEventId: '' };
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): SseMessage {
  return message(JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finishReason }] }));
}

function failure(action: () => unknown): ModelError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error('nothing was thrown');
}

describe('OpenAiTurnReader', () => {
  it('is complete at [DONE], skipping empty frames, and closes with finish', () => {
    const reader = new OpenAiTurnReader(ENDPOINT);
    expect(reader.read(chunk({ content: 'Hi' }))).toEqual([{ type: 'text-delta', text: 'Hi' }]);
    expect(reader.read(message(' '))).toEqual([]);
    expect(reader.complete).toBe(false);
    expect(reader.read(message(' [DONE] '))).toEqual([]);
    expect(reader.complete).toBe(true);
    expect(reader.end()).toEqual([{ type: 'finish', reason: 'stop' }]);
  });

  it('accepts a body that ended after a finish_reason without [DONE]', () => {
    const reader = new OpenAiTurnReader(ENDPOINT);
    reader.read(chunk({ content: 'Hi' }, 'stop'));
    expect(reader.complete).toBe(false);
    expect(reader.end()).toEqual([{ type: 'finish', reason: 'stop' }]);
  });

  it('calls a body that ended with neither broken, retryable, naming the endpoint without its secrets', () => {
    const reader = new OpenAiTurnReader(ENDPOINT);
    reader.read(chunk({ content: 'Half an answ' }));
    const broken = failure(() => reader.end());
    expect(broken.code).toBe('model_stream_broken');
    expect(broken.retryable).toBe(true);
    expect(broken.message).toBe(
      'the stream from POST https://api.example.com/v1/chat/completions ended without [DONE] or a finish_reason',
    );
  });

  it('reads `event: error` with a bare error object, and refuses a frame that is not JSON', () => {
    const overloaded = failure(() =>
      new OpenAiTurnReader(ENDPOINT).read(
        message('{"message":"Overloaded","type":"overloaded_error"}', 'error'),
      ),
    );
    expect(overloaded.code).toBe('model_unavailable');
    expect(overloaded.retryable).toBe(true);
    expect(overloaded.message).toBe('the provider reported an error in the stream: Overloaded');

    const garbled = failure(() => new OpenAiTurnReader(ENDPOINT).read(message('{"choices": [')));
    expect(garbled.code).toBe('model_failed');
    expect(garbled.message).toBe('the provider sent a frame that is not JSON: {"choices": [');
  });
});
