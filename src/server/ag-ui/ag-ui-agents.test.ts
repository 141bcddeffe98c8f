import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALPHA_ANSWER,
  BETA_ANSWER,
  BETA_INSTRUCTIONS,
  startTwoAgentServer,
  type TwoAgentServer,
} from '../responses/test-support/two-agent-server.ts';
import { agentFor, eventsOf, record } from './test-support/ag-ui-agent.ts';

/** `forwardedProps.agentId` picks a new thread's agent on `/v1/ag-ui`, with two agents in one server. */

let server: TwoAgentServer;
let runCount = 0;

beforeAll(async () => {
  server = await startTwoAgentServer();
});

afterAll(() => server?.close());

/** A `RunAgentInput` with one new user message, `forwardedProps` as given. */
function run(threadId: string, text: string, forwardedProps?: unknown, tools: unknown[] = []) {
  runCount += 1;
  return server.post('/v1/ag-ui', {
    threadId,
    runId: `run-${runCount}`,
    state: {},
    messages: [{ id: `m-${runCount}`, role: 'user', content: text }],
    tools,
    context: [],
    ...(forwardedProps === undefined ? {} : { forwardedProps }),
  });
}

/** The answer text of an AG-UI event stream (its `TEXT_MESSAGE_CONTENT` deltas); it must finish. */
async function answerOf(response: Response): Promise<string> {
  if (response.status !== 200)
    throw new Error(`expected a stream, got ${response.status}: ${await response.text()}`);
  const events = (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string });
  expect(events.at(-1)?.type).toBe('RUN_FINISHED');
  return events
    .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
    .map((event) => event.delta)
    .join('');
}

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

describe('/v1/ag-ui with two agents', () => {
  it('gives a new thread the agent forwardedProps.agentId names', async () => {
    expect(await answerOf(await run('thread-beta', '你是谁？', { agentId: 'beta' }))).toBe(BETA_ANSWER);
    expect(server.beta.requests.at(-1)?.messages[0]?.content).toContain(BETA_INSTRUCTIONS);
  });

  it('takes the agent from the real HttpAgent’s runAgent({ forwardedProps })', async () => {
    const agent = agentFor(server.url, 'thread-http-agent', server.token);
    agent.addMessage({ id: 'u-1', role: 'user', content: '你是谁？' });
    const run = await record(agent, { forwardedProps: { agentId: 'beta' } });
    expect(run.error).toBeUndefined();
    expect(run.types.at(-1)).toBe('RUN_FINISHED');
    expect(
      eventsOf(run, 'TEXT_MESSAGE_CONTENT')
        .map((event) => event.delta)
        .join(''),
    ).toBe(BETA_ANSWER);
  });

  it('gives a thread that names no agent the default one', async () => {
    expect(await answerOf(await run('thread-default', '你是谁？'))).toBe(ALPHA_ANSWER);
    expect(await answerOf(await run('thread-other-props', '你是谁？', { theme: 'dark' }))).toBe(ALPHA_ANSWER);
  });

  it('refuses an agent the server does not run, and an agentId that is not a string', async () => {
    expect(await errorOf(await run('thread-unknown', '你好', { agentId: 'gamma' }))).toMatchObject({
      status: 400,
      code: 'unknown_agent',
    });
    expect(await errorOf(await run('thread-unknown', '你好', { agentId: 7 }))).toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
    // Nothing was made for the refused thread: it can still start with any agent.
    expect(await answerOf(await run('thread-unknown', '你好', { agentId: 'beta' }))).toBe(BETA_ANSWER);
  });

  it('keeps a thread on its agent: another agentId is 400 agent_mismatch, none goes on with its own', async () => {
    expect(await answerOf(await run('thread-kept', '第一句', { agentId: 'beta' }))).toBe(BETA_ANSWER);
    expect(await errorOf(await run('thread-kept', '第二句', { agentId: 'alpha' }))).toMatchObject({
      status: 400,
      code: 'agent_mismatch',
    });
    expect(await answerOf(await run('thread-kept', '第二句'))).toBe(BETA_ANSWER);
    expect(await answerOf(await run('thread-kept', '第三句', { agentId: 'beta' }))).toBe(BETA_ANSWER);
  });

  it('checks frontend tools against the chosen agent’s tools', async () => {
    const lookup = [
      { name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: {} } },
    ];
    expect(
      await errorOf(await run('thread-tools-beta', '查一下', { agentId: 'beta' }, lookup)),
    ).toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
    expect(await answerOf(await run('thread-tools-alpha', '查一下', { agentId: 'alpha' }, lookup))).toBe(
      ALPHA_ANSWER,
    );
  });
});
