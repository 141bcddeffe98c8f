import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import { agentFor, eventsOf, parseAgUiSse, record } from './test-support/ag-ui-agent.ts';

/**
 * The real `@ag-ui/client` HttpAgent (1.0, whose verifier refuses any event out of order) against a
 * real server on an ephemeral port: what it applied, in order, and the agent's messages and state.
 */

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(model: ScriptedChatModel): Promise<string> {
  server = await startTestServer({ model });
  return server.server.url;
}

const READ_FILE = {
  name: 'read_file',
  description: 'Read a text file on the user’s machine',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
};

describe('HttpAgent against POST /v1/ag-ui', () => {
  it('streams reasoning and a text answer, and ends with the state and RUN_FINISHED', async () => {
    const url = await serve(
      new ScriptedChatModel([
        textTurn('你好，我是 NovaShop 客服。', {
          reasoning: '用户在打招呼。',
          chunkSize: 4,
        }),
      ]),
    );
    const agent = agentFor(url, 'thread-plain');
    agent.addMessage({ id: 'user-1', role: 'user', content: '你好' });
    const run = await record(agent, { runId: 'agui-run-1' });

    expect(run.error).toBeUndefined();
    expect(run.types).toEqual([
      'RUN_STARTED',
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'TEXT_MESSAGE_START',
      ...Array(5).fill('TEXT_MESSAGE_CONTENT'),
      'TEXT_MESSAGE_END',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    const [started] = eventsOf(run, 'RUN_STARTED');
    // The client's ids are echoed; runstream's own run id rides along, for POST /v1/runs/{id}/cancel.
    expect(started).toMatchObject({ threadId: 'thread-plain', runId: 'agui-run-1' });
    const runstream = { runId: runIdOf(started) };
    expect(runstream.runId).toMatch(/^run_/);
    expect(eventsOf(run, 'RUN_FINISHED')[0]).toMatchObject({
      threadId: 'thread-plain',
      runId: 'agui-run-1',
      outcome: { type: 'success' },
    });

    expect(agent.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', '你好'],
      ['reasoning', '用户在打招呼。'],
      ['assistant', '你好，我是 NovaShop 客服。'],
    ]);
    expect(agent.state).toEqual({
      runstream: expect.objectContaining({ runId: runstream.runId, status: 'completed' }),
    });

    // The thread goes on: the next user message is a new run of the same conversation.
    const response = await fetch(`${url}/v1/runs/${runstream.runId}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(await response.json()).toMatchObject({ status: 'completed' });
  });

  it('shows a server tool call with its arguments and result, then the answer that quotes it', async () => {
    const url = await serve(
      new ScriptedChatModel([
        toolCallTurn([{ name: 'query_order', arguments: { limit: 2 }, id: 'call_query' }], {
          text: '我查一下你的订单。',
          chunkSize: 5,
        }),
        (request) => {
          const result = request.messages.find((message) => message.role === 'tool')?.content ?? '';
          return textTurn(result.includes('88235') ? '你有一笔 88235 的订单。' : '没有找到订单。');
        },
      ]),
    );
    const agent = agentFor(url, 'thread-server-tool');
    agent.addMessage({ id: 'user-1', role: 'user', content: '我的订单呢' });
    const run = await record(agent, { runId: 'agui-run-2', tools: [] });

    expect(run.error).toBeUndefined();
    const calls = run.types.filter((type) => type.startsWith('TOOL_CALL'));
    expect(calls[0]).toBe('TOOL_CALL_START');
    expect(calls.slice(-2)).toEqual(['TOOL_CALL_END', 'TOOL_CALL_RESULT']);
    expect(run.types.indexOf('TEXT_MESSAGE_END')).toBeLessThan(run.types.indexOf('TOOL_CALL_START'));
    const [start] = eventsOf(run, 'TOOL_CALL_START');
    const [text] = eventsOf(run, 'TEXT_MESSAGE_START');
    // The call belongs to the assistant message the model wrote before it.
    expect(start).toMatchObject({
      toolCallId: 'call_query',
      toolCallName: 'query_order',
      parentMessageId: text?.messageId,
    });
    const [result] = eventsOf(run, 'TOOL_CALL_RESULT');
    expect(result?.content).toContain('88235');
    expect(run.types.at(-1)).toBe('RUN_FINISHED');

    const roles = agent.messages.map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const assistant = agent.messages[1] as {
      content?: string;
      toolCalls?: { id: string; function: { name: string; arguments: string } }[];
    };
    expect(assistant.content).toBe('我查一下你的订单。');
    expect(assistant.toolCalls).toEqual([
      { id: 'call_query', type: 'function', function: { name: 'query_order', arguments: '{"limit":2}' } },
    ]);
    expect(agent.messages[3]?.content).toBe('你有一笔 88235 的订单。');
  });

  it('pauses on a frontend tool and continues with the tool message the client sends back', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_read' }], {
        chunkSize: 4,
      }),
      (request) => {
        const output = request.messages.find((message) => message.role === 'tool')?.content ?? '(none)';
        return textTurn(`文件内容：${output}`);
      },
    ]);
    const url = await serve(model);
    const agent = agentFor(url, 'thread-frontend-tool');
    agent.addMessage({ id: 'user-1', role: 'user', content: '读一下 notes.txt' });
    const first = await record(agent, { runId: 'agui-run-3a', tools: [READ_FILE] });

    expect(first.error).toBeUndefined();
    expect(first.types).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_START',
      ...first.types.filter((type) => type === 'TOOL_CALL_ARGS'),
      'TOOL_CALL_END',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    const args = eventsOf(first, 'TOOL_CALL_ARGS')
      .map((event) => event.delta)
      .join('');
    expect(JSON.parse(args)).toEqual({ path: 'notes.txt' });
    expect(eventsOf(first, 'RUN_FINISHED')[0]).toMatchObject({
      outcome: { type: 'success', pendingToolCallIds: ['call_read'] },
    });
    expect(agent.state).toMatchObject({
      runstream: { status: 'paused', pause: { reason: 'tool_result', toolCallIds: ['call_read'] } },
    });
    const runId = (agent.state as { runstream: { runId: string } }).runstream.runId;

    // The application runs the tool and appends its result, as CopilotKit does with a frontend tool.
    agent.addMessage({ id: 'tool-1', role: 'tool', toolCallId: 'call_read', content: 'Buy milk.' });
    const second = await record(agent, { runId: 'agui-run-3b', tools: [READ_FILE] });

    expect(second.error).toBeUndefined();
    // The client already holds the result it sent: no TOOL_CALL_RESULT echoes it back.
    expect(second.types).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    expect(eventsOf(second, 'RUN_STARTED')[0]).toMatchObject({
      runId: 'agui-run-3b',
      metadata: { runstream: { runId } },
    });
    expect(agent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(agent.messages.at(-1)?.content).toBe('文件内容：Buy milk.');
    expect(agent.state).toMatchObject({ runstream: { runId, status: 'completed' } });
    // One run of runstream across both AG-UI runs: the model got the client's output.
    expect(model.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Buy milk.' });
  });

  it('keeps waiting, naming the rest, while only some of the frontend calls are answered', async () => {
    const url = await serve(
      new ScriptedChatModel([
        toolCallTurn([
          { name: 'read_file', arguments: { path: 'a.txt' }, id: 'call_a' },
          { name: 'read_file', arguments: { path: 'b.txt' }, id: 'call_b' },
        ]),
        (request) =>
          textTurn(
            request.messages
              .filter((message) => message.role === 'tool')
              .map((message) => message.content)
              .join(' + '),
          ),
      ]),
    );
    const agent = agentFor(url, 'thread-two-calls');
    agent.addMessage({ id: 'user-1', role: 'user', content: '读 a 和 b' });
    const first = await record(agent, { runId: 'agui-6a', tools: [READ_FILE] });
    expect(eventsOf(first, 'RUN_FINISHED')[0]).toMatchObject({
      outcome: { type: 'success', pendingToolCallIds: ['call_a', 'call_b'] },
    });
    // Both calls sit in one assistant message.
    expect(agent.messages.map((message) => message.role)).toEqual(['user', 'assistant']);

    agent.addMessage({ id: 'tool-a', role: 'tool', toolCallId: 'call_a', content: 'A' });
    const partial = await record(agent, { runId: 'agui-6b', tools: [READ_FILE] });
    expect(partial.types).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT', 'RUN_FINISHED']);
    expect(eventsOf(partial, 'RUN_FINISHED')[0]).toMatchObject({
      outcome: { type: 'success', pendingToolCallIds: ['call_b'] },
    });

    agent.addMessage({ id: 'tool-b', role: 'tool', toolCallId: 'call_b', content: 'B' });
    const done = await record(agent, { runId: 'agui-6c', tools: [READ_FILE] });
    expect(done.error).toBeUndefined();
    expect(agent.messages.at(-1)?.content).toBe('A + B');
    expect(agent.state).toMatchObject({ runstream: { status: 'completed' } });
  });

  it('ends a failed run with RUN_ERROR, after which the verifier accepts nothing', async () => {
    const url = await serve(
      new ScriptedChatModel([
        { parts: textTurn('半句话'), failAt: 0, error: new ModelError('model_unavailable', 'upstream 503') },
      ]),
    );
    const agent = agentFor(url, 'thread-failed');
    agent.addMessage({ id: 'user-1', role: 'user', content: '你好' });
    const run = await record(agent, { runId: 'agui-run-4' });

    expect(run.types.at(0)).toBe('RUN_STARTED');
    expect(run.types.at(-1)).toBe('RUN_ERROR');
    expect(run.types).not.toContain('RUN_FINISHED');
    expect(eventsOf(run, 'RUN_ERROR')[0]).toMatchObject({
      code: 'model_unavailable',
      message: expect.stringContaining('upstream 503'),
    });
    expect(agent.state).toMatchObject({
      runstream: { status: 'failed', error: { code: 'model_unavailable' } },
    });
  });

  it('starts runs under the per-user cap on running runs, like every other face (429)', async () => {
    server = await startTestServer({
      model: new ScriptedChatModel([textTurn('慢慢说'.repeat(200), { chunkSize: 1 })], { delayMs: 20 }),
      env: { RUNSTREAM_MAX_RUNNING_RUNS: '1' },
    });
    const { url } = server.server;
    const input = (threadId: string) => ({
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ threadId, runId: 'r', messages: [{ id: 'u1', role: 'user', content: '讲讲' }] }),
    });
    const running = await fetch(`${url}/v1/ag-ui`, input('thread-busy-1'));
    expect(running.status).toBe(200);
    const runId = running.headers.get('x-runstream-run-id');

    const agent = agentFor(url, 'thread-busy-2');
    agent.addMessage({ id: 'user-1', role: 'user', content: '我也要' });
    const refused = await record(agent, { runId: 'agui-busy' });
    expect(refused.error?.status).toBe(429);
    expect(refused.error?.payload).toMatchObject({ error: { code: 'too_many_runs' } });

    await fetch(`${url}/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    const stopped = parseAgUiSse(await running.text());
    expect(stopped.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
  });

  it('reports an explicit stop as RUN_FINISHED with the cancelled outcome', async () => {
    const url = await serve(
      new ScriptedChatModel([textTurn('很长的回答'.repeat(50), { chunkSize: 1 })], { delayMs: 20 }),
    );
    const agent = agentFor(url, 'thread-stop');
    agent.addMessage({ id: 'user-1', role: 'user', content: '讲个长故事' });
    let stopped: Promise<Response> | undefined;
    let runstreamId = '';
    const run = await record(agent, { runId: 'agui-run-5' }, (event) => {
      if (event.type === 'RUN_STARTED') runstreamId = runIdOf(event);
      // Stop once the answer is under way, with runstream's id from RUN_STARTED.
      if (event.type === 'TEXT_MESSAGE_CONTENT' && stopped === undefined)
        stopped = fetch(`${url}/v1/runs/${runstreamId}/cancel`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'user_stop' }),
        });
    });
    expect((await stopped)?.status).toBe(200);
    expect(run.error).toBeUndefined();
    expect(run.types.slice(-3)).toEqual(['TEXT_MESSAGE_END', 'STATE_SNAPSHOT', 'RUN_FINISHED']);
    expect(eventsOf(run, 'RUN_FINISHED')[0]).toMatchObject({
      outcome: { type: 'cancelled' },
      metadata: { runstream: { status: 'cancelled', reason: 'user_stop' } },
    });
    expect(agent.state).toMatchObject({ runstream: { status: 'cancelled', reason: 'user_stop' } });
  });
});

function runIdOf(event: unknown): string {
  return (event as { metadata: { runstream: { runId: string } } }).metadata.runstream.runId;
}
