import { afterEach, describe, expect, it } from 'vitest';
import { createChatModelFromEnv, ModelConfigError } from './create-chat-model-from-env.ts';
import { OpenAiChatModel } from './openai-chat-model.ts';
import {
  chunkFrame,
  DONE_FRAME,
  type FakeChatCompletionsServer,
  sse,
  startFakeChatCompletionsServer,
} from './test-support/fake-chat-completions-server.ts';

let server: FakeChatCompletionsServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function configError(action: () => unknown): ModelConfigError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelConfigError);
    return error as ModelConfigError;
  }
  throw new Error('nothing was thrown');
}

describe('createChatModelFromEnv', () => {
  it('returns undefined when nothing is configured (the caller uses the offline demo model)', () => {
    expect(createChatModelFromEnv({})).toBeUndefined();
    expect(
      createChatModelFromEnv({ OPENAI_API_KEY: '', OPENAI_BASE_URL: ' ', RUNSTREAM_MODEL: '' }),
    ).toBeUndefined();
  });

  it('talks to OPENAI_BASE_URL with RUNSTREAM_MODEL, without a key for a local server', async () => {
    server = await startFakeChatCompletionsServer([sse([chunkFrame({ content: 'Hi' }, 'stop'), DONE_FRAME])]);
    const model = createChatModelFromEnv({
      OPENAI_BASE_URL: `${server.baseUrl}/`,
      RUNSTREAM_MODEL: 'qwen-plus',
    });
    expect(model).toBeInstanceOf(OpenAiChatModel);
    expect(model?.name).toBe('openai:qwen-plus');
    const parts = [];
    for await (const part of model?.stream({ messages: [{ role: 'user', content: 'Hi' }] }) ?? [])
      parts.push(part);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(server.requests[0]?.url).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(JSON.parse(server.requests[0]?.body ?? '').model).toBe('qwen-plus');
  });

  it('defaults to api.openai.com when only the key is set', async () => {
    const urls: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response(`${chunkFrame({}, 'stop')}${DONE_FRAME}`, {
        headers: { 'content-type': 'text/event-stream' },
      });
    };
    const model = createChatModelFromEnv(
      { OPENAI_API_KEY: 'sk-live-key', RUNSTREAM_MODEL: 'gpt-4.1-mini' },
      { fetch: fakeFetch },
    );
    for await (const _part of model?.stream({ messages: [{ role: 'user', content: 'Hi' }] }) ?? []) {
      // Drained for the request only.
    }
    expect(urls).toEqual(['https://api.openai.com/v1/chat/completions']);
  });

  it('requires RUNSTREAM_MODEL once a key or base URL is set', () => {
    const withKey = configError(() => createChatModelFromEnv({ OPENAI_API_KEY: 'sk-live-key' }));
    expect(withKey.code).toBe('model_config_invalid');
    expect(withKey.message).toContain('OPENAI_API_KEY is set but RUNSTREAM_MODEL is not');
    expect(withKey.message).not.toContain('sk-live-key');
    const withUrl = configError(() =>
      createChatModelFromEnv({ OPENAI_BASE_URL: 'http://localhost:8000/v1' }),
    );
    expect(withUrl.message).toContain('OPENAI_BASE_URL is set but RUNSTREAM_MODEL is not');
  });

  it('rejects a model without an endpoint, and a base URL that is not http(s)', () => {
    expect(configError(() => createChatModelFromEnv({ RUNSTREAM_MODEL: 'deepseek-chat' })).message).toContain(
      'neither OPENAI_BASE_URL nor OPENAI_API_KEY',
    );
    expect(
      configError(() =>
        createChatModelFromEnv({ OPENAI_BASE_URL: 'localhost:8000/v1', RUNSTREAM_MODEL: 'm' }),
      ).message,
    ).toContain('not an http(s) URL');
  });
});
