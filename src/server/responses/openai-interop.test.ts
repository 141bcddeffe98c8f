import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInteropScript } from '../test-support/interop-clients.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';

/**
 * `openai` 7 and the OpenAI Agents SDK 0.20 (both Node 22, in interop/) against a real server with the
 * offline NovaShop model, in the plain shape they know (and the extension shape once, on request).
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(() => server?.close());

async function run(script: string): Promise<Record<string, unknown>> {
  const result = await runInteropScript(script, [server.server.url, TEST_TOKEN], { timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`${script} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

const NOTES_ANSWER = 'The file notes.txt contains:\n```\nBuy milk.\nCall Alice at 3pm.\n```';

describe('openai 7 against /v1/responses', () => {
  it('streams with responses.stream() and create({ stream: true }), a function round trip each, and a confirmation', async () => {
    const report = (await run('openai-responses.mjs')) as {
      textOnly: { status: string; output_text: string; deltas: string };
      streamHelper: {
        firstTypes: string[];
        waiting: { id: string; status: string; output: string[] };
        call: { name: string; arguments: string };
        answered: {
          id: string;
          status: string;
          previous_response_id: string;
          output: string[];
          output_text: string;
        };
        deltas: string;
      };
      createStream: {
        firstSequence: number[];
        firstTypes: string[];
        secondTypes: string[];
        answered: { status: string; output_text: string; previous: string };
        waitingId: string;
      };
      confirmation: {
        waiting: { type: string; name?: string }[];
        approved: { type: string; name?: string }[];
        approvedText: string;
      };
      extension: { lastType: string };
    };
    const { textOnly, streamHelper, createStream, confirmation, extension } = report;
    expect(textOnly.status).toBe('completed');
    expect(textOnly.output_text).not.toBe('');
    expect(textOnly.deltas).toBe(textOnly.output_text);
    // The helper folded every event (it throws on one it does not know).
    expect(streamHelper.firstTypes.at(-1)).toBe('response.completed');
    expect(streamHelper.waiting).toMatchObject({
      status: 'completed',
      output: ['reasoning', 'message', 'function_call'],
    });
    expect(streamHelper.call).toEqual({ name: 'read_file', arguments: '{"path":"notes.txt"}' });
    expect(streamHelper.answered).toMatchObject({
      status: 'completed',
      previous_response_id: streamHelper.waiting.id,
      output: ['message'],
      output_text: NOTES_ANSWER,
    });
    expect(streamHelper.deltas).toBe(NOTES_ANSWER);

    expect(createStream.firstSequence).toEqual(createStream.firstSequence.map((_, index) => index));
    expect(createStream.firstTypes.at(-1)).toBe('response.completed');
    expect(createStream.secondTypes[0]).toBe('response.created');
    expect(createStream.answered).toEqual({
      status: 'completed',
      output_text: NOTES_ANSWER,
      previous: createStream.waitingId,
    });

    expect(confirmation.waiting).toContainEqual({
      type: 'mcp_call',
      name: 'query_order',
      server_label: 'runstream',
    });
    expect(confirmation.waiting.at(-1)).toMatchObject({ type: 'mcp_approval_request', name: 'cancel_order' });
    expect(confirmation.approved[0]).toEqual({
      type: 'mcp_call',
      name: 'cancel_order',
      status: 'completed',
      error: null,
    });
    expect(confirmation.approvedText).not.toBe('');

    expect(extension.lastType).toBe('response.requires_action');
  });
});

describe('the OpenAI Agents SDK against /v1/responses', () => {
  it('runs an agent with a local function tool, non-streamed and streamed, a second turn with the whole history, and previousResponseId', async () => {
    const report = (await run('openai-agents.mjs')) as {
      nonStreamed: { finalOutput: string; invocations: string[]; items: string[] };
      streamed: { finalOutput: string; text: string; invocations: string[]; items: string[] };
      secondTurn: { finalOutput: string; invocations: string[] };
      twoTools: { finalOutput: string; invocations: string[]; items: string[] };
      previousResponseId: { first: string; second: string; firstResponseId: string; invocations: string[] };
    };
    const items = [
      'reasoning_item',
      'message_output_item',
      'tool_call_item',
      'tool_call_output_item',
      'message_output_item',
    ];
    // The tool ran exactly once in each run: the history it sent back resumed the paused response.
    expect(report.nonStreamed).toEqual({ finalOutput: NOTES_ANSWER, invocations: ['notes.txt'], items });
    expect(report.streamed).toMatchObject({ finalOutput: NOTES_ANSWER, invocations: ['notes.txt'], items });
    expect(report.streamed.text.endsWith(NOTES_ANSWER)).toBe(true);
    expect(report.secondTurn.invocations).toEqual(['notes.txt', 'README.md']);
    expect(report.secondTurn.finalOutput).toContain('README.md');
    // Two local tools called together: both outputs go back in one request, the run resumes once.
    expect(report.twoTools.invocations).toEqual(['notes.txt', 'local_time']);
    expect(report.twoTools.finalOutput).toContain('Buy milk.');
    expect(report.twoTools.finalOutput).toContain('2025-05-01T10:00:00+08:00');
    // With previousResponseId the SDK sends only what is new; the last response of the first run is
    // the continuation of its tool round, and the next turn continues that conversation.
    expect(report.previousResponseId.first).toBe(NOTES_ANSWER);
    expect(report.previousResponseId.firstResponseId).toMatch(/^run_[0-9a-f]+\.\d+$/);
    expect(report.previousResponseId.second).toContain('README.md');
    expect(report.previousResponseId.invocations).toEqual(['notes.txt', 'README.md']);
  });
});
