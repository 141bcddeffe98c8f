import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicMessagesModel } from './anthropic-messages-model.ts';
import type { ChatModel, ChatRequest, ChatStreamPart } from './chat-model.ts';
import {
  ANTHROPIC_DEFAULT_THINKING_BUDGET,
  createChatModelFromEnv,
  ModelConfigError,
} from './create-chat-model-from-env.ts';
import { OpenAiChatModel } from './openai-chat-model.ts';
import { ScriptedChatModel } from './scripted-chat-model.ts';
import { ScriptedTurnsFileError } from './scripted-turns-file.ts';
import {
  chunkFrame,
  DONE_FRAME,
  type FakeChatCompletionsServer,
  jsonResponse,
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

  it('passes the provider, reasoning, limit and retry settings to the adapter', async () => {
    server = await startFakeChatCompletionsServer([
      jsonResponse(503, { error: { message: 'busy' } }),
      sse([chunkFrame({ content: 'Hi' }, 'stop'), DONE_FRAME]),
    ]);
    const model = createChatModelFromEnv({
      OPENAI_BASE_URL: server.baseUrl,
      RUNSTREAM_MODEL: 'deepseek-v4-flash',
      RUNSTREAM_MODEL_PROVIDER: 'deepseek',
      RUNSTREAM_MODEL_THINKING: 'ON',
      RUNSTREAM_MODEL_REASONING_EFFORT: 'max',
      RUNSTREAM_MODEL_MAX_OUTPUT_TOKENS: '4096',
      RUNSTREAM_MODEL_MAX_RETRIES: '0',
    });
    expect(model).toBeInstanceOf(OpenAiChatModel);
    expect((model as OpenAiChatModel).provider).toBe('deepseek');
    const { error } = await failure(model?.stream({ messages: [{ role: 'user', content: 'Hi' }] }) ?? []);
    expect(error).toMatchObject({ code: 'model_unavailable' });
    // Not retried: RUNSTREAM_MODEL_MAX_RETRIES=0.
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]?.body ?? '')).toMatchObject({
      thinking: { type: 'enabled' },
      reasoning_effort: 'max',
      max_tokens: 4096,
    });
  });

  it('applies the first-token timeout from the environment', async () => {
    server = await startFakeChatCompletionsServer([sse([], { ending: 'hang' })]);
    const model = createChatModelFromEnv({
      OPENAI_BASE_URL: server.baseUrl,
      RUNSTREAM_MODEL: 'm',
      RUNSTREAM_MODEL_FIRST_TOKEN_TIMEOUT_MS: '100',
      RUNSTREAM_MODEL_MAX_RETRIES: '0',
    });
    const { error } = await failure(model?.stream({ messages: [{ role: 'user', content: 'Hi' }] }) ?? []);
    expect(String((error as Error).message)).toContain('within 100 ms of the request (first-token timeout)');
  });

  it('detects the provider from the base URL', () => {
    const model = createChatModelFromEnv({
      OPENAI_BASE_URL: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
      OPENAI_API_KEY: 'sk-live-key',
      RUNSTREAM_MODEL: 'qwen-plus',
      RUNSTREAM_MODEL_THINKING: 'off',
    });
    expect((model as OpenAiChatModel).provider).toBe('dashscope');
  });

  it.each([
    [
      'RUNSTREAM_MODEL_PROVIDER',
      'deep-seek',
      'is not one of openai, deepseek, dashscope, moonshot, siliconflow, openrouter, vllm, ollama, llamacpp, openai-compatible',
    ],
    ['RUNSTREAM_MODEL_THINKING', 'yes', 'is not one of on, off'],
    ['RUNSTREAM_MODEL_REASONING_EFFORT', 'extreme', 'is not one of minimal, low, medium, high, xhigh, max'],
    ['RUNSTREAM_MODEL_API', 'grpc', 'is not one of openai, anthropic'],
    ['RUNSTREAM_MODEL_MAX_OUTPUT_TOKENS', '0', 'is not a whole number of at least 1'],
    ['RUNSTREAM_MODEL_MAX_OUTPUT_TOKENS', '12.5', 'is not a whole number of at least 1'],
    ['RUNSTREAM_MODEL_FIRST_TOKEN_TIMEOUT_MS', '10s', 'is not a whole number of at least 1'],
    ['RUNSTREAM_MODEL_IDLE_TIMEOUT_MS', '-5', 'is not a whole number of at least 1'],
    ['RUNSTREAM_MODEL_MAX_RETRIES', 'three', 'is not a whole number of at least 0'],
  ])('refuses %s=%s at start, naming the variable and what it accepts', (name, value, accepted) => {
    const error = configError(() =>
      createChatModelFromEnv({
        OPENAI_BASE_URL: 'http://localhost:8000/v1',
        RUNSTREAM_MODEL: 'm',
        [name]: value,
      }),
    );
    expect(error.message).toBe(`${name}=${JSON.stringify(value)} ${accepted}`);
  });

  it('refuses the Messages-only thinking budget on Chat Completions rather than ignoring it', () => {
    const error = configError(() =>
      createChatModelFromEnv({
        OPENAI_BASE_URL: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
        RUNSTREAM_MODEL: 'qwen-plus',
        RUNSTREAM_MODEL_THINKING: 'on',
        RUNSTREAM_MODEL_THINKING_BUDGET: '4096',
      }),
    );
    expect(error.message).toContain(
      'RUNSTREAM_MODEL_THINKING_BUDGET applies to RUNSTREAM_MODEL_API=anthropic only',
    );
  });

  it('refuses a setting the provider has no switch for, and says where the provider came from', () => {
    const detected = configError(() =>
      createChatModelFromEnv({
        OPENAI_BASE_URL: 'https://api.moonshot.ai/v1',
        OPENAI_API_KEY: 'sk-live-key',
        RUNSTREAM_MODEL: 'kimi-k2.6',
        RUNSTREAM_MODEL_REASONING_EFFORT: 'high',
      }),
    );
    expect(detected.message).toBe(
      'RUNSTREAM_MODEL_REASONING_EFFORT=high: Moonshot AI (Kimi) (moonshot) documents no reasoning effort; ' +
        'leave it unset (detected from OPENAI_BASE_URL; set RUNSTREAM_MODEL_PROVIDER to choose another)',
    );
    expect(detected.message).not.toContain('sk-live-key');
    const contradictory = configError(() =>
      createChatModelFromEnv({
        OPENAI_BASE_URL: 'http://localhost:8000/v1',
        RUNSTREAM_MODEL: 'm',
        RUNSTREAM_MODEL_PROVIDER: 'ollama',
        RUNSTREAM_MODEL_THINKING: 'off',
        RUNSTREAM_MODEL_REASONING_EFFORT: 'low',
      }),
    );
    expect(contradictory.message).toBe(
      'RUNSTREAM_MODEL_THINKING=off with RUNSTREAM_MODEL_REASONING_EFFORT=low: a reasoning effort needs thinking, which is switched off',
    );
  });

  describe('RUNSTREAM_MODEL_API=anthropic', () => {
    /** A fetch that records each request and answers with a short Messages stream. */
    function recordingFetch(): {
      fetch: typeof fetch;
      requests: { url: string; headers: Headers; body: unknown }[];
    } {
      const requests: { url: string; headers: Headers; body: unknown }[] = [];
      const events = [
        [
          'message_start',
          {
            type: 'message_start',
            message: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              content: [],
              model: 'm',
              stop_reason: null,
              usage: { input_tokens: 12, output_tokens: 1 },
            },
          },
        ],
        [
          'content_block_start',
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        ],
        [
          'content_block_delta',
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
        ],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'message_delta',
          { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } },
        ],
        ['message_stop', { type: 'message_stop' }],
      ] as const;
      const body = events
        .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
        .join('');
      return {
        requests,
        fetch: async (input, init) => {
          requests.push({
            url: String(input),
            headers: new Headers(init?.headers),
            body: JSON.parse(String(init?.body)),
          });
          return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
        },
      };
    }

    async function drain(model: ChatModel | undefined, request: ChatRequest): Promise<ChatStreamPart[]> {
      const parts: ChatStreamPart[] = [];
      for await (const part of model?.stream(request) ?? []) parts.push(part);
      return parts;
    }

    it('talks to ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY, thinking on with the default budget', async () => {
      const recorder = recordingFetch();
      const model = createChatModelFromEnv(
        {
          RUNSTREAM_MODEL_API: 'anthropic',
          ANTHROPIC_BASE_URL: 'https://claude.example.test',
          ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
          RUNSTREAM_MODEL: 'claude-sonnet-4-5',
          RUNSTREAM_MODEL_THINKING: 'on',
          RUNSTREAM_MODEL_MAX_OUTPUT_TOKENS: '1000',
        },
        { fetch: recorder.fetch },
      );
      expect(model).toBeInstanceOf(AnthropicMessagesModel);
      expect(model?.name).toBe('anthropic:claude-sonnet-4-5');
      const parts = await drain(model, { messages: [{ role: 'user', content: 'Hi' }] });
      expect(parts.at(-1)).toEqual({
        type: 'finish',
        reason: 'stop',
        usage: { inputTokens: 12, outputTokens: 3 },
      });
      const request = recorder.requests[0];
      expect(request?.url).toBe('https://claude.example.test/v1/messages');
      expect(request?.headers.get('x-api-key')).toBe('sk-ant-test-0123456789');
      expect(request?.body).toMatchObject({
        model: 'claude-sonnet-4-5',
        thinking: { type: 'enabled', budget_tokens: ANTHROPIC_DEFAULT_THINKING_BUDGET },
        stream: true,
      });
    });

    it('is implied by a model with only Anthropic variables set, but a lone key keeps the offline model', () => {
      expect(
        createChatModelFromEnv({
          ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
          RUNSTREAM_MODEL: 'claude-haiku-4-5',
        }),
      ).toBeInstanceOf(AnthropicMessagesModel);
      expect(createChatModelFromEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-0123456789' })).toBeUndefined();
      // With both kinds of variable set, Chat Completions stays the default.
      expect(
        createChatModelFromEnv({
          ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
          OPENAI_API_KEY: 'sk-openai-test-0123456789',
          RUNSTREAM_MODEL: 'gpt-4.1-mini',
        }),
      ).toBeInstanceOf(OpenAiChatModel);
    });

    it("sends DeepSeek's unsigned reasoning of a tool-call turn back, and not Claude's", async () => {
      const transcript: ChatRequest = {
        messages: [
          { role: 'user', content: '88235 到哪了？' },
          {
            role: 'assistant',
            content: '',
            reasoning: '先查订单。',
            toolCalls: [{ id: 'toolu_1', name: 'query_order', arguments: '{"orderId":"88235"}' }],
          },
          { role: 'tool', toolCallId: 'toolu_1', content: '{"status":"shipped"}' },
        ],
      };
      const firstContent = async (baseUrl: string) => {
        const recorder = recordingFetch();
        const model = createChatModelFromEnv(
          { RUNSTREAM_MODEL_API: 'anthropic', ANTHROPIC_BASE_URL: baseUrl, RUNSTREAM_MODEL: 'm' },
          { fetch: recorder.fetch },
        );
        await drain(model, transcript);
        const body = recorder.requests[0]?.body as { messages: { content: { type: string }[] }[] };
        return body.messages[1]?.content.map((block) => block.type);
      };
      expect(await firstContent('https://api.deepseek.com/anthropic')).toEqual(['thinking', 'tool_use']);
      expect(await firstContent('https://api.anthropic.com')).toEqual(['tool_use']);
    });

    it('refuses settings the Anthropic protocol cannot take, naming the variable', () => {
      const base = { RUNSTREAM_MODEL_API: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-test-0123456789' };
      expect(configError(() => createChatModelFromEnv(base)).message).toContain('RUNSTREAM_MODEL is not');
      expect(
        configError(() =>
          createChatModelFromEnv({ ...base, RUNSTREAM_MODEL: 'm', RUNSTREAM_MODEL_PROVIDER: 'vllm' }),
        ).message,
      ).toBe('RUNSTREAM_MODEL_PROVIDER="vllm" is not one of anthropic, deepseek, moonshot, dashscope');
      expect(
        configError(() =>
          createChatModelFromEnv({ ...base, RUNSTREAM_MODEL: 'm', RUNSTREAM_MODEL_THINKING_BUDGET: '4096' }),
        ).message,
      ).toContain('RUNSTREAM_MODEL_THINKING_BUDGET is set but RUNSTREAM_MODEL_THINKING is not on');
      expect(
        configError(() =>
          createChatModelFromEnv({
            ...base,
            RUNSTREAM_MODEL: 'm',
            RUNSTREAM_MODEL_THINKING: 'on',
            RUNSTREAM_MODEL_THINKING_BUDGET: '512',
          }),
        ).message,
      ).toBe('RUNSTREAM_MODEL_THINKING_BUDGET="512" is not a whole number of at least 1024');
      expect(
        configError(() =>
          createChatModelFromEnv({ ...base, ANTHROPIC_BASE_URL: 'ftp://x', RUNSTREAM_MODEL: 'm' }),
        ).message,
      ).toContain('ANTHROPIC_BASE_URL is not an http(s) URL');
    });
  });
});

async function failure(parts: Iterable<unknown> | AsyncIterable<unknown>): Promise<{ error: unknown }> {
  try {
    for await (const _part of parts) {
      // Drained until it fails.
    }
  } catch (error) {
    return { error };
  }
  throw new Error('the stream did not fail');
}

describe('createChatModelFromEnv with RUNSTREAM_MODEL=scripted:<file>', () => {
  let directory: string | undefined;

  afterEach(() => {
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });

  function scriptFile(text: string): string {
    directory = mkdtempSync(join(tmpdir(), 'scripted-env-'));
    const path = join(directory, 'demo.jsonl');
    writeFileSync(path, text);
    return path;
  }

  it('replays the file, needs no key and reads no other variable', async () => {
    const path = scriptFile('[{"type":"text","text":"你好"}]\n');
    const model = createChatModelFromEnv({
      RUNSTREAM_MODEL: `scripted:${path}`,
      OPENAI_API_KEY: 'sk-live-key',
      RUNSTREAM_MODEL_THINKING: 'nonsense',
    });
    expect(model).toBeInstanceOf(ScriptedChatModel);
    expect(model?.name).toBe('scripted:demo.jsonl');
    const parts: ChatStreamPart[] = [];
    for await (const part of model?.stream({ messages: [{ role: 'user', content: 'Hi' }] }) ?? [])
      parts.push(part);
    expect(parts).toEqual([
      { type: 'text-delta', text: '你好' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('is a ModelConfigError naming the file and line of a bad line, or an empty path', () => {
    const path = scriptFile('[{"type":"text","text":"ok"}]\n{oops\n');
    const error = configError(() => createChatModelFromEnv({ RUNSTREAM_MODEL: `scripted:${path}` }));
    expect(error.message).toContain(`RUNSTREAM_MODEL=scripted:${path}: ${path}:2: not JSON`);
    expect(error.cause).toBeInstanceOf(ScriptedTurnsFileError);
    expect(configError(() => createChatModelFromEnv({ RUNSTREAM_MODEL: 'scripted: ' })).message).toMatch(
      /names no file/,
    );
    expect(
      configError(() => createChatModelFromEnv({ RUNSTREAM_MODEL: 'scripted:/no/such/file.jsonl' })).message,
    ).toContain('/no/such/file.jsonl: cannot read the scripted turns (no such file)');
  });
});
