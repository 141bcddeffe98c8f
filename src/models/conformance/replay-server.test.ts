import { afterEach, describe, expect, it } from 'vitest';
import { type ReplayProvider, type ReplayServer, startReplayServer } from './replay-server.ts';
import {
  RECORDED,
  type RecordingName,
  recording,
  signatureOf,
  withoutFrames,
} from './test-support/recordings.ts';

/**
 * The replay server's rules, over raw `fetch`: a request that breaks a provider's documented rule
 * gets that provider's refusal (status and body); a valid one gets the next recording, byte for byte.
 */

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function replay(provider: ReplayProvider, names: RecordingName[] = ['query-order', 'answer']) {
  server = await startReplayServer({ provider, responses: names.map((name) => recording(provider, name)) });
  return server;
}

async function post(
  running: ReplayServer,
  body: unknown,
  options: { path?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string; json: unknown }> {
  const response = await fetch(`${running.origin}${options.path ?? '/v1/chat/completions'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

const TOOLS = [
  {
    type: 'function',
    function: { name: 'query_order', description: 'Look up an order.', parameters: { type: 'object' } },
  },
];
const CALL = {
  id: 'call_1',
  type: 'function',
  function: { name: 'query_order', arguments: '{"orderId":"88235"}' },
};
/** A Chat Completions request after one tool round; `assistant` adds fields to the calling turn. */
function toolLoop(
  model: string,
  assistant: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): { messages: Record<string, unknown>[]; [field: string]: unknown } {
  return {
    model,
    stream: true,
    tools: TOOLS,
    messages: [
      { role: 'system', content: '你是客服。' },
      { role: 'user', content: '订单 88235 到哪了？' },
      { role: 'assistant', content: null, tool_calls: [CALL], ...assistant },
      { role: 'tool', tool_call_id: 'call_1', content: '{"status":"已发货"}' },
    ],
    ...extra,
  };
}

describe('replay server', () => {
  it('serves the recordings in order, byte for byte, keeps every request, and refuses a surplus one', async () => {
    const running = await replay('deepseek');
    const first = await post(running, {
      model: 'deepseek-reasoner',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(first).toMatchObject({ status: 200, text: recording('deepseek', 'query-order').body });
    const second = await post(running, toolLoop('deepseek-reasoner', { reasoning_content: 'looked it up' }));
    expect(second).toMatchObject({ status: 200, text: recording('deepseek', 'answer').body });
    const third = await post(running, { model: 'deepseek-reasoner', stream: true, messages: [] });
    expect(third.status).toBe(418);
    expect(running.requests.map((request) => request.answer)).toEqual([
      { served: 'deepseek/query-order.sse' },
      { served: 'deepseek/answer.sse' },
      { refused: expect.objectContaining({ rule: 'replay.exhausted' }) },
    ]);
    expect(running.requests[1]?.json).toEqual(
      toolLoop('deepseek-reasoner', { reasoning_content: 'looked it up' }),
    );
  });

  it('answers 404 off its route, and refuses a request that does not stream', async () => {
    const running = await replay('anthropic');
    expect((await post(running, {}, { path: '/v1/chat/completions' })).status).toBe(404);
    const chat = await replay('vllm');
    expect((await post(chat, { model: 'm', messages: [] }, { path: '/v1/completions' })).status).toBe(404);
    const unstreamed = await post(chat, { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(unstreamed.status).toBe(400);
    expect(chat.refusals().map((refusal) => refusal.rule)).toEqual(['replay.route', 'replay.stream_only']);
  });
});

describe('generic Chat Completions rules (OpenAI wording)', () => {
  it('refuses a tool message that answers no call of the turn before it', async () => {
    const running = await replay('vllm');
    const body = toolLoop('m');
    body.messages.splice(2, 1);
    expect(await post(running, body)).toMatchObject({
      status: 400,
      json: {
        error: {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          type: 'invalid_request_error',
          param: 'messages.[2].role',
          code: null,
        },
      },
    });
  });

  it('refuses a call without its result, naming the ids', async () => {
    const running = await replay('ollama');
    const body = toolLoop('qwen3:8b');
    body.messages[2] = { role: 'assistant', content: null, tool_calls: [CALL, { ...CALL, id: 'call_2' }] };
    const answer = await post(running, body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      error: {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
          'The following tool_call_ids did not have response messages: call_2',
      },
    });
  });

  it('refuses arguments sent back parsed instead of as their JSON text', async () => {
    const running = await replay('openrouter');
    const body = toolLoop('moonshotai/kimi-k2.5');
    body.messages[2] = {
      role: 'assistant',
      content: null,
      tool_calls: [{ ...CALL, function: { name: 'query_order', arguments: { orderId: '88235' } } }],
    };
    const answer = await post(running, body);
    expect(answer.status).toBe(400);
    expect(running.refusals()[0]?.rule).toBe('generic.arguments_are_text');
  });

  it('serves a well-paired tool loop', async () => {
    const running = await replay('vllm');
    await post(running, { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect((await post(running, toolLoop('Qwen/Qwen3-8B'))).status).toBe(200);
    expect(running.refusals()).toEqual([]);
  });
});

describe('DeepSeek thinking mode', () => {
  const refusal = {
    error: {
      message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_request_error',
    },
  };

  it('refuses a tool loop whose calling turn comes back without reasoning_content', async () => {
    const running = await replay('deepseek');
    expect(await post(running, toolLoop('deepseek-reasoner'))).toMatchObject({ status: 400, json: refusal });
    // V4 thinks unless told otherwise; the switch turned off lifts the requirement.
    expect(await post(running, toolLoop('deepseek-v4-flash'))).toMatchObject({ status: 400, json: refusal });
    const off = await post(running, toolLoop('deepseek-v4-flash', {}, { thinking: { type: 'disabled' } }));
    expect(off.status).toBe(200);
  });

  it('keeps requiring it in every later request, but not for a stretch between users without tool calls', async () => {
    const running = await replay('deepseek');
    const later = toolLoop('deepseek-reasoner');
    later.messages.push(
      { role: 'assistant', content: '已发货。', reasoning_content: 'answered' },
      {
        role: 'user',
        content: '谢谢',
      },
    );
    expect((await post(running, later)).status).toBe(400);
    const plainChat = {
      model: 'deepseek-reasoner',
      stream: true,
      messages: [
        { role: 'user', content: '你好' },
        { role: 'assistant', content: '你好！' },
        { role: 'user', content: '在吗' },
      ],
    };
    expect((await post(running, plainChat)).status).toBe(200);
  });

  it('serves the tool loop once reasoning_content comes back, even empty', async () => {
    const running = await replay('deepseek', ['answer']);
    expect((await post(running, toolLoop('deepseek-reasoner', { reasoning_content: '' }))).status).toBe(200);
  });
});

describe('Kimi thinking models', () => {
  it('refuses a calling turn without reasoning_content, naming its index', async () => {
    const running = await replay('moonshot');
    expect(await post(running, toolLoop('kimi-k2.6'))).toMatchObject({
      status: 400,
      json: {
        error: {
          message:
            'thinking is enabled but reasoning_content is missing in assistant tool call message at index 2',
          type: 'invalid_request_error',
        },
      },
    });
    expect((await post(running, toolLoop('kimi-k2-thinking'))).status).toBe(400);
  });

  it('asks nothing of a model that does not think', async () => {
    const running = await replay('moonshot');
    expect((await post(running, toolLoop('kimi-k2.6', {}, { thinking: { type: 'disabled' } }))).status).toBe(
      200,
    );
    expect((await post(running, toolLoop('moonshot-v1-128k'))).status).toBe(200);
  });
});

describe('OpenAI', () => {
  it('refuses max_tokens and a non-default temperature for a reasoning model', async () => {
    const running = await replay('openai');
    expect(await post(running, toolLoop('gpt-5', {}, { max_tokens: 4000 }))).toMatchObject({
      status: 400,
      json: {
        error: {
          message:
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
          type: 'invalid_request_error',
          param: 'max_tokens',
          code: 'unsupported_parameter',
        },
      },
    });
    expect(await post(running, toolLoop('o4-mini', {}, { temperature: 0.2 }))).toMatchObject({
      status: 400,
      json: { error: { param: 'temperature', code: 'unsupported_value' } },
    });
    expect((await post(running, toolLoop('gpt-5', {}, { max_completion_tokens: 4000 }))).status).toBe(200);
    expect(
      (await post(running, toolLoop('gpt-4.1', {}, { max_tokens: 4000, temperature: 0.2 }))).status,
    ).toBe(200);
  });

  it("refuses other providers' switches and reasoning fields in the history", async () => {
    const running = await replay('openai');
    expect(await post(running, toolLoop('gpt-5', {}, { thinking: { type: 'enabled' } }))).toMatchObject({
      status: 400,
      json: { error: { message: 'Unrecognized request argument supplied: thinking' } },
    });
    expect(await post(running, toolLoop('gpt-5', { reasoning_content: 'thought' }))).toMatchObject({
      status: 400,
      json: {
        error: {
          message:
            "Additional properties are not allowed ('reasoning_content' was unexpected) - 'messages.2'",
        },
      },
    });
    expect((await post(running, toolLoop('gpt-4.1-mini', {}, { reasoning_effort: 'low' }))).status).toBe(400);
  });
});

describe('DashScope, Ollama and llama.cpp', () => {
  it('DashScope refuses enable_thinking on a call that does not stream', async () => {
    const running = await replay('dashscope');
    const answer = await post(running, {
      ...toolLoop('qwen3-max', {}, { enable_thinking: true }),
      stream: false,
    });
    expect(answer).toMatchObject({
      status: 400,
      json: {
        error: {
          code: 'invalid_parameter_error',
          message: 'parameter.enable_thinking must be set to false for non-streaming calls',
          type: 'invalid_request_error',
        },
      },
    });
    expect((await post(running, toolLoop('qwen3-max', {}, { enable_thinking: true }))).status).toBe(200);
  });

  it('Ollama refuses a reasoning effort it does not know', async () => {
    const running = await replay('ollama');
    expect(await post(running, toolLoop('qwen3:8b', {}, { reasoning_effort: 'on' }))).toMatchObject({
      status: 400,
      json: {
        error: {
          message:
            'invalid reasoning value: "on" (must be "minimal", "low", "medium", "high", "xhigh", "ultra", "max", or "none")',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
    });
    expect((await post(running, toolLoop('qwen3:8b', {}, { reasoning: { effort: 'high' } }))).status).toBe(
      200,
    );
  });

  it('llama.cpp refuses a message without content', async () => {
    const running = await replay('llamacpp');
    const body = toolLoop('openai/gpt-oss-20b');
    body.messages[2] = { role: 'assistant', tool_calls: [CALL] };
    const answer = await post(running, body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: { code: 400, type: 'invalid_request_error' } });
    expect(answer.text).toContain("Failed to parse messages: Expected 'content'");
  });
});

describe('Anthropic Messages', () => {
  const HEADERS = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };
  const PATH = '/v1/messages';
  const signature = /"signature_delta","signature":"([^"]+)"/.exec(
    recording('anthropic', 'query-order').body,
  )?.[1];
  const thinkingBlock = { type: 'thinking', thinking: RECORDED.reasoning['query-order'], signature };
  const toolUse = {
    type: 'tool_use',
    id: 'toolu_01Js4AMfx5qpTLhwTusnvT68',
    name: 'query_order',
    input: { orderId: '88235' },
  };
  const toolResult = {
    type: 'tool_result',
    tool_use_id: 'toolu_01Js4AMfx5qpTLhwTusnvT68',
    content: '已发货',
  };
  const request = (
    assistant: unknown[],
    extra: Record<string, unknown> = {},
    results: unknown[] = [toolResult],
  ) => ({
    model: 'claude-sonnet-4-20250514',
    max_tokens: 8192,
    stream: true,
    thinking: { type: 'enabled', budget_tokens: 4000 },
    messages: [
      { role: 'user', content: '订单 88235 到哪了？' },
      { role: 'assistant', content: assistant },
      { role: 'user', content: results },
    ],
    ...extra,
  });
  const messageOf = (answer: { json: unknown }) =>
    (answer.json as { error?: { message?: string } }).error?.message;

  /** A server that has streamed the first turn, so its thinking block counts as issued. */
  async function afterFirstTurn() {
    const running = await replay('anthropic');
    const first = await post(
      running,
      { ...request([]), messages: [{ role: 'user', content: 'hi' }] },
      { path: PATH, headers: HEADERS },
    );
    expect(first.status).toBe(200);
    return running;
  }

  it('serves the next turn when the thinking block comes back unchanged before the tool_use', async () => {
    expect(signature).toBeDefined();
    const running = await afterFirstTurn();
    const answer = await post(running, request([thinkingBlock, toolUse]), { path: PATH, headers: HEADERS });
    expect(answer).toMatchObject({ status: 200, text: recording('anthropic', 'answer').body });
  });

  it('refuses an altered or missing thinking block', async () => {
    const running = await afterFirstTurn();
    const altered = await post(
      running,
      request([{ ...thinkingBlock, thinking: `${thinkingBlock.thinking} ` }, toolUse]),
      {
        path: PATH,
        headers: HEADERS,
      },
    );
    expect(altered).toMatchObject({
      status: 400,
      json: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'messages.1.content.0: Invalid `signature` in `thinking` block',
        },
      },
    });
    const missing = await post(running, request([toolUse]), { path: PATH, headers: HEADERS });
    expect(missing.status).toBe(400);
    expect(messageOf(missing)).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    );
    const unsigned = await post(running, request([{ type: 'thinking', thinking: 'x' }, toolUse]), {
      path: PATH,
      headers: HEADERS,
    });
    expect(messageOf(unsigned)).toBe('messages.1.content.0.thinking.signature: Field required');
  });

  it('refuses a tool_use without its tool_result, and a tool_result that answers nothing', async () => {
    const running = await afterFirstTurn();
    const unanswered = await post(
      running,
      request([thinkingBlock, toolUse], {}, [{ type: 'text', text: '?' }]),
      {
        path: PATH,
        headers: HEADERS,
      },
    );
    expect(messageOf(unanswered)).toBe(
      'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Js4AMfx5qpTLhwTusnvT68. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    const stray = await post(
      running,
      request([thinkingBlock, toolUse], {}, [toolResult, { ...toolResult, tool_use_id: 'toolu_x' }]),
      {
        path: PATH,
        headers: HEADERS,
      },
    );
    expect(messageOf(stray)).toMatch(
      /^messages\.2\.content\.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x\./,
    );
  });

  it('refuses thinking settings outside the documented bounds, and a request without its headers', async () => {
    const running = await replay('anthropic');
    const send = (body: unknown) => post(running, body, { path: PATH, headers: HEADERS });
    expect(messageOf(await send(request([], { thinking: { type: 'enabled', budget_tokens: 512 } })))).toBe(
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    );
    expect(messageOf(await send(request([], { max_tokens: 4000 })))).toBe(
      '`max_tokens` must be greater than `thinking.budget_tokens`.',
    );
    expect(messageOf(await send(request([], { temperature: 0.5 })))).toMatch(
      /^`temperature` may only be set to 1/,
    );
    const keyless = await post(running, request([]), {
      path: PATH,
      headers: { 'anthropic-version': '2023-06-01' },
    });
    expect(keyless).toMatchObject({ status: 401, json: { error: { type: 'authentication_error' } } });
  });
});

describe('Anthropic adaptive thinking', () => {
  const HEADERS = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };
  const PATH = '/v1/messages';
  const toolUse = {
    type: 'tool_use',
    id: 'toolu_01Js4AMfx5qpTLhwTusnvT68',
    name: 'query_order',
    input: { orderId: '88235' },
  };
  const request = (assistant: unknown[], extra: Record<string, unknown> = {}) => ({
    model: 'claude-opus-4-6',
    max_tokens: 4096,
    stream: true,
    thinking: { type: 'adaptive' },
    messages: [
      { role: 'user', content: '订单 88235 到哪了？' },
      { role: 'assistant', content: assistant },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '已发货' }] },
    ],
    ...extra,
  });

  /** A server whose first response is `first`, already streamed. */
  async function afterFirstTurn(first: { body: string; name?: string }) {
    server = await startReplayServer({
      provider: 'anthropic',
      responses: [first, recording('anthropic', 'answer')],
    });
    const streamed = await post(
      server,
      { ...request([]), messages: [{ role: 'user', content: 'hi' }] },
      { path: PATH, headers: HEADERS },
    );
    expect(streamed.status).toBe(200);
    return server;
  }

  it('refuses a final tool-loop turn without the thinking block its response carried', async () => {
    const running = await afterFirstTurn(recording('anthropic', 'query-order'));
    const answer = await post(running, request([toolUse]), { path: PATH, headers: HEADERS });
    expect(answer.status).toBe(400);
    expect((answer.json as { error: { message: string } }).error.message).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\./,
    );
    const thinking = {
      type: 'thinking',
      thinking: RECORDED.reasoning['query-order'],
      signature: signatureOf(recording('anthropic', 'query-order')),
    };
    const kept = await post(running, request([thinking, toolUse]), { path: PATH, headers: HEADERS });
    expect(kept.status).toBe(200);
  });

  it('asks nothing of a turn that Claude answered without thinking, and no temperature but 1', async () => {
    const unthinking = withoutFrames(
      recording('anthropic', 'query-order'),
      'no thinking',
      (event) => event.index === 0,
    );
    expect(unthinking.body).not.toContain('"thinking"');
    const running = await afterFirstTurn(unthinking);
    const hot = await post(running, request([toolUse], { temperature: 0.3 }), {
      path: PATH,
      headers: HEADERS,
    });
    expect(hot.status).toBe(400);
    expect((hot.json as { error: { message: string } }).error.message).toMatch(
      /^`temperature` may only be set to 1/,
    );
    const answer = await post(running, request([toolUse]), { path: PATH, headers: HEADERS });
    expect(answer.status).toBe(200);
  });
});

describe("DeepSeek's Anthropic format", () => {
  const PATH = '/v1/messages';
  const KEY = { 'x-api-key': 'sk-deepseek-test' };
  const toolUse = (id: string) => ({
    type: 'tool_use',
    id,
    name: 'query_order',
    input: { orderId: '88235' },
  });
  const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: '已发货' });
  const body = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
    model: 'deepseek-v4-pro',
    max_tokens: 4096,
    stream: true,
    messages,
    ...extra,
  });
  const loop = (assistant: unknown[]) => [
    { role: 'user', content: '订单 88235 到哪了？' },
    { role: 'assistant', content: [...assistant, toolUse('call_1')] },
    { role: 'user', content: [toolResult('call_1')] },
  ];
  const THINKING_BACK = {
    error: {
      message: 'The `content[].thinking` in the thinking mode must be passed back to the API.',
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_request_error',
    },
  };

  it('refuses a tool loop whose calling turn comes back without its thinking, thinking being on by default', async () => {
    const running = await replay('deepseek-anthropic');
    const answer = await post(running, body(loop([])), { path: PATH, headers: KEY });
    expect(answer).toMatchObject({ status: 400, json: THINKING_BACK });
    expect(running.refusals().map((refusal) => refusal.rule)).toEqual(['deepseek.thinking_back']);
  });

  it('serves the loop once a thinking block comes back, even empty and unsigned, with either key header', async () => {
    const running = await replay('deepseek-anthropic');
    const empty = await post(running, body(loop([{ type: 'thinking', thinking: '', signature: '' }])), {
      path: PATH,
      headers: { authorization: 'Bearer sk-deepseek-test' },
    });
    expect(empty).toMatchObject({ status: 200, text: recording('deepseek-anthropic', 'query-order').body });
    const keyless = await post(running, body(loop([{ type: 'thinking', thinking: 'x' }])), { path: PATH });
    expect(keyless).toMatchObject({
      status: 401,
      json: {
        error: { type: 'authentication_error', message: expect.stringMatching(/^Authentication Fails/) },
      },
    });
  });

  it('keeps requiring it in every later request, for every assistant message of the stretch, but not for a stretch without tool calls, nor with thinking off', async () => {
    const running = await replay('deepseek-anthropic', ['query-order', 'answer', 'answer']);
    const thinking = { type: 'thinking', thinking: 'r' };
    /** A finished tool loop, then the user's next line. */
    const later = (toolTurn: unknown[], answerTurn: unknown[]) => [
      ...loop(toolTurn),
      { role: 'assistant', content: [...answerTurn, { type: 'text', text: '已发货。' }] },
      { role: 'user', content: '谢谢' },
    ];
    const send = async (messages: unknown[], extra: Record<string, unknown> = {}) =>
      post(running, body(messages, extra), { path: PATH, headers: KEY });
    expect(await send(later([], []))).toMatchObject({ status: 400, json: THINKING_BACK });
    expect(await send(later([thinking], []))).toMatchObject({ status: 400, json: THINKING_BACK });
    const chatOnly = [
      { role: 'user', content: '你好' },
      { role: 'assistant', content: [{ type: 'text', text: '你好！' }] },
      { role: 'user', content: '订单 88235 到哪了？' },
    ];
    expect((await send(chatOnly)).status).toBe(200);
    expect((await send(later([], []), { thinking: { type: 'disabled' } })).status).toBe(200);
    expect((await send(later([thinking], [thinking]))).status).toBe(200);
  });

  it('refuses a tool_use without its tool_result in its own error shape', async () => {
    const running = await replay('deepseek-anthropic');
    const unanswered = [
      { role: 'user', content: '订单 88235 到哪了？' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'r' }, toolUse('call_1')] },
      { role: 'user', content: [{ type: 'text', text: '?' }] },
    ];
    const answer = await post(running, body(unanswered), { path: PATH, headers: KEY });
    expect(answer).toMatchObject({
      status: 400,
      json: {
        error: {
          type: 'invalid_request_error',
          message: expect.stringMatching(/^messages\.2: `tool_use` ids/),
        },
      },
    });
  });
});
