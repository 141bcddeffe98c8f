import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALPHA_ANSWER,
  BETA_ANSWER,
  BETA_INSTRUCTIONS,
  startTwoAgentServer,
  type TwoAgentServer,
} from './test-support/two-agent-server.ts';

/** `model` names the agent on `/v1/responses`, over real HTTP, with two agents in one server. */

let server: TwoAgentServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startTwoAgentServer();
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.token, maxRetries: 0 });
});

afterAll(() => server?.close());

interface ErrorBody {
  error: { code: string; message: string; type?: string; param?: string; agentId?: string };
}

describe('/v1/responses with two agents', () => {
  it('answers with the agent the model names, and echoes its id as the model', async () => {
    const response = await client.responses.create({ model: 'beta', input: '你是谁？' });
    expect(response.output_text).toBe(BETA_ANSWER);
    expect(response.model).toBe('beta');
    // Beta's own prompt, not the default agent's.
    expect(server.beta.requests.at(-1)?.messages[0]?.content).toContain(BETA_INSTRUCTIONS);
  });

  it('answers with the default (first) agent when model is absent or empty', async () => {
    const absent = await server.post('/v1/responses', { input: '你是谁？' });
    expect(absent.status).toBe(200);
    expect(await absent.json()).toMatchObject({ model: 'alpha', output_text: ALPHA_ANSWER });
    const empty = await client.responses.create({ model: '', input: '你是谁？' });
    expect(empty).toMatchObject({ model: 'alpha', output_text: ALPHA_ANSWER });
  });

  it('refuses a model that is no agent with an OpenAI-style 400 naming the served agents, storing nothing', async () => {
    const before = await conversationCount();
    const refused = await client.responses
      .create({ model: 'gpt-4o', input: '你好' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    const error = refused as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error.status).toBe(400);
    expect(error.code).toBe('model_not_found');
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toBe('model');
    expect(error.message).toContain('"gpt-4o"');
    expect(error.message).toContain('alpha, beta');
    expect(await conversationCount()).toBe(before);
  });

  it('keeps a previous_response_id chain on its agent and refuses another model on it', async () => {
    const first = await client.responses.create({ model: 'beta', input: '第一句' });
    const switched = await server.post('/v1/responses', {
      model: 'alpha',
      input: '第二句',
      previous_response_id: first.id,
    });
    expect(switched.status).toBe(400);
    const body = (await switched.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: 'agent_mismatch', agentId: 'beta', param: 'model' });
    // Without a model, or with the chain's own, the chain goes on with beta, which saw the first turn.
    const asked = server.beta.requests.length;
    const second = await server.post('/v1/responses', { input: '第二句', previous_response_id: first.id });
    expect(await second.json()).toMatchObject({ model: 'beta', output_text: BETA_ANSWER });
    const third = await client.responses.create({
      model: 'beta',
      input: '第三句',
      previous_response_id: first.id,
    });
    expect(third).toMatchObject({ model: 'beta', output_text: BETA_ANSWER });
    expect(server.beta.requests).toHaveLength(asked + 2);
    expect(server.beta.requests.at(-1)?.messages.map((message) => message.content)).toContain('第一句');
  });

  it('checks host tools against the chosen agent’s tools', async () => {
    const lookup = { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } };
    const onBeta = await server.post('/v1/responses', { model: 'beta', input: '查一下', tools: [lookup] });
    expect(onBeta.status).toBe(400);
    expect(((await onBeta.json()) as ErrorBody).error.message).toContain('lookup');
    // Alpha has no tool of that name: the host may declare one.
    const onAlpha = await server.post('/v1/responses', { model: 'alpha', input: '查一下', tools: [lookup] });
    expect(onAlpha.status).toBe(200);
    expect(await onAlpha.json()).toMatchObject({ model: 'alpha', output_text: ALPHA_ANSWER });
  });
});

async function conversationCount(): Promise<number> {
  const response = await fetch(`${server.url}/v1/conversations`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  return ((await response.json()) as { data: unknown[] }).data.length;
}
