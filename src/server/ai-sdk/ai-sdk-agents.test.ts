import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALPHA_ANSWER,
  BETA_ANSWER,
  BETA_INSTRUCTIONS,
  startTwoAgentServer,
  type TwoAgentServer,
} from '../responses/test-support/two-agent-server.ts';

/** The body's `agentId` picks a new chat's agent on `/v1/ai-sdk/chat`, with two agents in one server. */

let server: TwoAgentServer;

beforeAll(async () => {
  server = await startTwoAgentServer();
});

afterAll(() => server?.close());

const userMessage = (id: string, text: string) => ({ id, role: 'user', parts: [{ type: 'text', text }] });

/** A chat turn as `DefaultChatTransport` posts it, `agentId` added with the transport's `body`. */
function send(chatId: string, text: string, agentId?: string): Promise<Response> {
  return server.post('/v1/ai-sdk/chat', {
    id: chatId,
    messages: [userMessage(`m-${text}`, text)],
    trigger: 'submit-message',
    ...(agentId === undefined ? {} : { agentId }),
  });
}

/** The answer text of a UI message stream (its `text-delta` chunks). */
async function answerOf(response: Response): Promise<string> {
  if (response.status !== 200)
    throw new Error(`expected a stream, got ${response.status}: ${await response.text()}`);
  return (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string })
    .filter((chunk) => chunk.type === 'text-delta')
    .map((chunk) => chunk.delta)
    .join('');
}

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

describe('/v1/ai-sdk/chat with two agents', () => {
  it('gives a new chat the agent its agentId names', async () => {
    expect(await answerOf(await send('chat-beta', '你是谁？', 'beta'))).toBe(BETA_ANSWER);
    expect(server.beta.requests.at(-1)?.messages[0]?.content).toContain(BETA_INSTRUCTIONS);
  });

  it('gives a chat without agentId the default agent', async () => {
    expect(await answerOf(await send('chat-default', '你是谁？'))).toBe(ALPHA_ANSWER);
    expect(await answerOf(await send('chat-empty', '你是谁？', ''))).toBe(ALPHA_ANSWER);
  });

  it('refuses an agentId the server does not run with 400 unknown_agent, before the chat exists', async () => {
    expect(await errorOf(await send('chat-unknown', '你好', 'gamma'))).toMatchObject({
      status: 400,
      code: 'unknown_agent',
    });
    // Nothing was made for the refused chat: it can still start with any agent.
    expect(await answerOf(await send('chat-unknown', '你好', 'beta'))).toBe(BETA_ANSWER);
  });

  it('keeps a chat on its agent: another agentId is 400 agent_mismatch, none goes on with its own', async () => {
    expect(await answerOf(await send('chat-kept', '第一句', 'beta'))).toBe(BETA_ANSWER);
    expect(await errorOf(await send('chat-kept', '第二句', 'alpha'))).toMatchObject({
      status: 400,
      code: 'agent_mismatch',
    });
    expect(await answerOf(await send('chat-kept', '第二句'))).toBe(BETA_ANSWER);
    expect(await answerOf(await send('chat-kept', '第三句', 'beta'))).toBe(BETA_ANSWER);
  });

  it('checks the client’s tools against the chosen agent’s tools', async () => {
    const withLookup = (chatId: string, agentId: string) =>
      server.post('/v1/ai-sdk/chat', {
        id: chatId,
        messages: [userMessage('m-1', '查一下')],
        agentId,
        tools: [{ name: 'lookup', parameters: { type: 'object', properties: {} } }],
      });
    expect(await errorOf(await withLookup('chat-tools-beta', 'beta'))).toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
    expect(await answerOf(await withLookup('chat-tools-alpha', 'alpha'))).toBe(ALPHA_ANSWER);
  });
});
