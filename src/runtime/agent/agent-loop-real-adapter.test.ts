import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatMessage } from '../../models/index.ts';
import {
  chunkFrame,
  DONE_FRAME,
  sse,
  usageFrame,
} from '../../models/test-support/fake-chat-completions-server.ts';
import { fakeServerPerTest, modelFor, ROLE_FRAME } from '../../models/test-support/openai-test-kit.ts';
import type { ToolBlock } from '../../protocol/index.ts';
import { RunLog } from '../log/run-log.ts';
import { driveRun } from '../runs/drive-run.ts';
import type { Tool } from '../tools/tool.ts';
import { Agent } from './agent-loop.ts';

/**
 * The agent loop driven by the real OpenAI-compatible adapter over real HTTP: what a provider's odd
 * stream becomes in the run's blocks. (The scripted model of the other runtime tests cannot send a
 * malformed or truncated wire stream.)
 */
const start = fakeServerPerTest();
const context = { runId: 'run_1', conversationId: 'conv_1', userId: 'usr_1' };

function queryOrder(): Tool<{ orderId: string }, unknown> & { calls: string[] } {
  const tool = {
    name: 'query_order',
    title: '订单查询',
    description: 'Look an order up.',
    parameters: z.object({ orderId: z.string() }),
    effect: 'read' as const,
    calls: [] as string[],
    async execute(args: { orderId: string }) {
      tool.calls.push(args.orderId);
      return { orderId: args.orderId, status: '已发货' };
    },
  };
  return tool;
}

function toolCall(index: number, id: string, name: string, argumentsText: string) {
  return chunkFrame({
    tool_calls: [{ index, id, type: 'function', function: { name, arguments: argumentsText } }],
  });
}

async function runAgainst(baseUrl: Parameters<typeof modelFor>[0], tool = queryOrder()) {
  const log = new RunLog('run_1');
  const controller = new AbortController();
  const agent = new Agent({
    model: modelFor(baseUrl, { provider: 'ollama', maxRetries: 0 }),
    tools: [tool],
    skills: [],
    log,
    context,
    signal: controller.signal,
  });
  log.append({ type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' });
  const transcript: ChatMessage[] = [{ role: 'user', content: '查一下订单 88235 和 88236' }];
  const outcome = await driveRun(log, controller.signal, () => agent.start(transcript));
  return { log, outcome, tool };
}

describe('the agent loop over the real adapter', () => {
  it('turns unparsable arguments into a failed tool block the model is told about, next to a call that runs', async () => {
    const running = await start(
      // Ollama's shape: both calls at index 0, each with its own id; the first one's JSON is broken.
      sse([
        ROLE_FRAME,
        toolCall(0, 'call_bad', 'query_order', '{"orderId": 88235'),
        toolCall(0, 'call_good', 'query_order', '{"orderId":"88236"}'),
        chunkFrame({}, 'stop'),
        usageFrame(50, 12),
        DONE_FRAME,
      ]),
      sse([chunkFrame({ content: '88236 已发货；88235 的查询参数有误，我再试一次。' }, 'stop'), DONE_FRAME]),
    );
    const { log, outcome, tool } = await runAgainst(running);

    expect(outcome).toEqual({ status: 'completed' });
    const tools = log.state.blocks.filter((block): block is ToolBlock => block.kind === 'tool');
    expect(tools.map((block) => [block.toolCallId, block.status, block.error?.code ?? null])).toEqual([
      ['call_bad', 'failed', 'invalid_arguments'],
      ['call_good', 'done', null],
    ]);
    expect(tools[0]?.argsText).toBe('{"orderId": 88235');
    expect(tool.calls).toEqual(['88236']);
    // The next request carries both calls and both results: nothing was lost or merged.
    const second = JSON.parse(running.requests[1]?.body ?? '{}') as { messages: Record<string, unknown>[] };
    expect(second.messages.at(1)).toMatchObject({
      role: 'assistant',
      tool_calls: [
        { id: 'call_bad', function: { arguments: '{"orderId": 88235' } },
        { id: 'call_good', function: { arguments: '{"orderId":"88236"}' } },
      ],
    });
    const results = second.messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.tool_call_id)).toEqual(['call_bad', 'call_good']);
    expect(JSON.parse(String(results[0]?.content)).error.code).toBe('invalid_arguments');
    expect(log.state.status).toBe('completed');
  });

  it('never presents a stream cut before [DONE] or a finish reason as a complete answer', async () => {
    const running = await start(
      // The body ends cleanly after half an answer: no finish_reason, no [DONE].
      sse([ROLE_FRAME, chunkFrame({ content: '七天无理由退货，' }), chunkFrame({ content: '但需要' })]),
    );
    const { log, outcome } = await runAgainst(running);

    expect(outcome.status).toBe('failed');
    expect(log.state.status).toBe('failed');
    expect(log.state.error?.code).toBe('model_stream_broken');
    expect(log.state.blocks.map((block) => `${block.kind}:${block.status}`)).toEqual([
      'answer:interrupted',
      'error:done',
    ]);
    expect(log.state.blocks[0]).toMatchObject({ text: '七天无理由退货，但需要' });
    expect(log.state.blocks[1]).toMatchObject({
      text: expect.stringContaining('ended without [DONE] or a finish_reason'),
    });
    // Output had reached the user: not retried.
    expect(running.requests).toHaveLength(1);
  });
});
