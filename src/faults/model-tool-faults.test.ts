import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ChatModel,
  type ChatRequest,
  ScriptedChatModel,
  type ScriptedTurnInput,
  textTurn,
  toolCallTurn,
} from '../models/index.ts';
import {
  chunkFrame,
  DONE_FRAME,
  frame,
  type Responder,
  sse,
  startFakeChatCompletionsServer,
} from '../models/test-support/fake-chat-completions-server.ts';
import { modelFor, ROLE_FRAME } from '../models/test-support/openai-test-kit.ts';
import type { RunEvent } from '../protocol/index.ts';
import type { AnyTool } from '../runtime/index.ts';
import { campaignSize } from '../shared/test-support/campaign-size.ts';
import {
  type FaultServer,
  finishedEvent,
  messageFrom,
  readStream,
  sendMessage,
  startFaultServer,
  storeProblems,
  summarise,
  tally,
} from './test-support/fault-server.ts';

/**
 * Model and tool fault campaign (issue #13 §2): a model that breaks, hangs or sends malformed
 * chunks over real HTTP (the wire-faithful fake OpenAI server behind `OpenAiChatModel`), a model
 * that calls a tool with arguments that fail its schema or are not JSON, and a tool that throws,
 * hangs past its timeout or returns 10 MB, each behind the real HTTP app and a real SQLite file.
 * Every run must finish (`run.finished`), its faulty step must end as a failed block or an error
 * block that says what went wrong, and nothing may be left running in the store.
 */
/** Runs at once in each case: 10 in the campaign, 3 in `npm test` (see campaign-size.ts). */
const RUNS = campaignSize({ quick: 3, full: 10 });
/**
 * The model's timeouts (`OpenAiChatModel`'s `timeoutMs`, first-token and idle at once; the runtime
 * has none of its own) in the cases where the model hangs: short, so a hang costs little. The other
 * cases keep a generous one, so that a busy machine (ten runs at once, other test files alongside)
 * never trips it.
 */
const MODEL_IDLE_MS = 1000;
const CALM_IDLE_MS = 15_000;
/** The hanging tool's `timeoutMs`. */
const TOOL_TIMEOUT_MS = 150;

const outcomes: string[] = [];
const started = performance.now();
afterAll(() => {
  summarise(
    `model-tool-faults: ${outcomes.length} cases × ${RUNS} runs in ${Math.round(performance.now() - started)} ms; ${outcomes.join('; ')}`,
  );
});

interface CaseRun {
  events: RunEvent[];
  runId: string;
}

/**
 * `RUNS` runs at once, each in its own conversation, over HTTP; then each run's stored state is
 * checked. `drive` may continue a run (a decision) and returns every event the run streamed.
 */
async function campaign(
  server: FaultServer,
  text: string,
  drive: (first: RunEvent[]) => Promise<RunEvent[]> = async (first) => first,
): Promise<CaseRun[]> {
  const results = await Promise.all(
    Array.from({ length: RUNS }, async () => {
      const conversationId = await server.newConversation();
      const first = await sendMessage(server, conversationId, text);
      expect(first.status).toBe(200);
      const events = await drive(first.events);
      const runId = events[0]?.runId ?? '';
      await server.runs.settled(runId);
      return { events, runId };
    }),
  );
  for (const { events, runId } of results) {
    const seqs = events.flatMap((event) => (event.type === 'done' ? [] : [event.seq]));
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(await storeProblems(server, runId, events)).toEqual([]);
  }
  // A faulty model or tool is no reason for a failed write.
  expect(server.persistenceErrors).toEqual([]);
  return results;
}

describe('a faulty model over real HTTP', () => {
  async function withFakeModel(
    responder: (request: ChatRequestBody) => Responder,
    work: (server: FaultServer) => Promise<void>,
    options: { maxRetries?: number; idleMs?: number } = {},
  ): Promise<number> {
    // Each request is answered by what it asks (a first turn, or a turn after a tool result), so
    // runs racing each other get the right answer whatever order their requests arrive in.
    const router: Responder = (context) =>
      responder(JSON.parse(context.recorded.body) as ChatRequestBody)(context);
    const fake = await startFakeChatCompletionsServer(Array.from({ length: RUNS * 4 }, () => router));
    const model = modelFor(fake, {
      timeoutMs: options.idleMs ?? CALM_IDLE_MS,
      maxRetries: options.maxRetries ?? 0,
    });
    const server = await startFaultServer({ model, tools: [queryOrder()] });
    try {
      await work(server);
    } finally {
      await server.close();
      await fake.close();
    }
    return fake.requests.length;
  }

  it('a stream cut mid-answer: failed, the answer interrupted, an error block says the stream broke', async () => {
    await withFakeModel(
      () =>
        sse([ROLE_FRAME, chunkFrame({ content: '七天无理由' }), chunkFrame({ content: '退货' })], {
          ending: 'destroy',
        }),
      async (server) => {
        const runs = await campaign(server, '退货政策是什么？');
        expectEach(runs, 'model stream cut', {
          status: 'failed',
          code: 'model_stream_broken',
          blocks: ['answer:interrupted', 'error:done'],
          error: /模型服务出错.*the model stream broke after 2 parts/,
        });
      },
    );
  });

  it("an error frame mid-answer: failed with the provider's own explanation", async () => {
    await withFakeModel(
      () =>
        sse([
          ROLE_FRAME,
          chunkFrame({ content: '七天' }),
          frame({ error: { message: 'The engine is currently overloaded', type: 'server_error' } }),
        ]),
      async (server) => {
        const runs = await campaign(server, '退货政策是什么？');
        expectEach(runs, 'model error frame', {
          status: 'failed',
          code: 'model_stream_broken',
          blocks: ['answer:interrupted', 'error:done'],
          error: /The engine is currently overloaded/,
        });
      },
    );
  });

  it('a model that goes silent mid-answer: the idle timeout fails the run, naming the silence', async () => {
    await withFakeModel(
      () => sse([ROLE_FRAME, chunkFrame({ content: '七天' })], { ending: 'hang' }),
      async (server) => {
        const runs = await campaign(server, '退货政策是什么？');
        expectEach(runs, 'model hangs mid-answer', {
          status: 'failed',
          code: 'model_stream_broken',
          blocks: ['answer:interrupted', 'error:done'],
          error: new RegExp(`was silent for ${MODEL_IDLE_MS} ms \\(idle timeout\\)`),
        });
      },
      { idleMs: MODEL_IDLE_MS },
    );
  });

  it('a model that never says anything: the first-token timeout and one retry, then failed', async () => {
    const requests = await withFakeModel(
      () => sse([], { ending: 'hang' }),
      async (server) => {
        const runs = await campaign(server, '退货政策是什么？');
        expectEach(runs, 'model hangs before answering', {
          status: 'failed',
          code: 'model_unavailable',
          blocks: ['error:done'],
          error: new RegExp(
            `sent no event within ${MODEL_IDLE_MS} ms of the request \\(first-token timeout\\) \\(gave up after 2 attempts\\)`,
          ),
        });
      },
      { maxRetries: 1, idleMs: MODEL_IDLE_MS },
    );
    expect(requests).toBe(RUNS * 2);
  });

  it('a chunk that is not JSON: failed, quoting the frame', async () => {
    await withFakeModel(
      () =>
        sse([ROLE_FRAME, chunkFrame({ content: '七天' }), 'data: {"choices":[{"delta":{"content":"无\n\n']),
      async (server) => {
        const runs = await campaign(server, '退货政策是什么？');
        expectEach(runs, 'model chunk not JSON', {
          status: 'failed',
          code: 'model_stream_broken',
          blocks: ['answer:interrupted', 'error:done'],
          error: /the provider sent a frame that is not JSON: \{"choices"/,
        });
      },
    );
  });

  it('a chunk of the wrong shape: failed, saying what could not be read', async () => {
    await withFakeModel(
      () =>
        sse([ROLE_FRAME, chunkFrame({ content: '七天' }), frame({ id: 'x', choices: 'none' }), DONE_FRAME]),
      async (server) => {
        const runs = await campaign(server, '退货政策是什么？');
        expectEach(runs, 'model chunk of wrong shape', {
          status: 'failed',
          code: 'model_stream_broken',
          blocks: ['answer:interrupted', 'error:done'],
          error: /a chunk this adapter cannot read \(choices:/,
        });
      },
    );
  });

  for (const [label, argumentsText, error] of [
    ["fail the tool's schema", '{"orderId":"abc"}', /orderId/],
    ['are not JSON', '{"orderId": 88', /arguments are not valid JSON: \{"orderId": 88/],
  ] as const) {
    it(`tool arguments that ${label}: the call fails invalid_arguments, the model answers, completed`, async () => {
      await withFakeModel(
        (request) =>
          request.messages.some((message) => message.role === 'tool')
            ? sse([ROLE_FRAME, chunkFrame({ content: '请提供数字订单号。' }, 'stop'), DONE_FRAME])
            : sse([ROLE_FRAME, ...toolCallFrames('query_order', argumentsText), DONE_FRAME]),
        async (server) => {
          const runs = await campaign(server, '查一下订单 abc');
          expectEach(runs, `tool arguments ${label}`, {
            status: 'completed',
            code: '-',
            blocks: ['tool:failed', 'answer:done'],
            toolError: { code: 'invalid_arguments', message: error },
          });
        },
      );
    });
  }
});

describe('a faulty tool over real HTTP', () => {
  /** A scripted model: it calls `name` once, then answers with what the tool message said. */
  function callingModel(name: string, args: Record<string, unknown>): ChatModel {
    const turn: ScriptedTurnInput = (request: ChatRequest) => {
      const last = request.messages.at(-1);
      return last?.role === 'tool'
        ? textTurn(`工具返回了 ${last.content.length} 个字符。`)
        : toolCallTurn([{ name, arguments: args }]);
    };
    return new ScriptedChatModel(Array.from({ length: RUNS * 2 }, () => turn));
  }

  async function withTools(
    model: ChatModel,
    tools: AnyTool[],
    work: (server: FaultServer) => Promise<void>,
  ): Promise<void> {
    const server = await startFaultServer({ model, tools });
    try {
      await work(server);
    } finally {
      await server.close();
    }
  }

  it('a tool that throws: its block fails with the error, the model answers, completed', async () => {
    const tool = queryOrder(async () => {
      throw new Error('订单服务 502 Bad Gateway');
    });
    await withTools(callingModel('query_order', { orderId: '88235' }), [tool], async (server) => {
      const runs = await campaign(server, '查一下订单 88235');
      expectEach(runs, 'tool throws', {
        status: 'completed',
        code: '-',
        blocks: ['tool:failed', 'answer:done'],
        toolError: { code: 'tool_failed', message: /订单服务 502 Bad Gateway/ },
      });
    });
  });

  it('a tool that hangs past its timeout (and ignores its signal): timed out, the run goes on', async () => {
    const tool: AnyTool = {
      ...queryOrder(() => new Promise(() => undefined)),
      timeoutMs: TOOL_TIMEOUT_MS,
    };
    await withTools(callingModel('query_order', { orderId: '88235' }), [tool], async (server) => {
      const begun = performance.now();
      const runs = await campaign(server, '查一下订单 88235');
      expect(performance.now() - begun).toBeLessThan(TOOL_TIMEOUT_MS + 5000);
      expectEach(runs, 'tool hangs', {
        status: 'completed',
        code: '-',
        blocks: ['tool:failed', 'answer:done'],
        toolError: { code: 'tool_timeout', message: new RegExp(`工具执行超时（${TOOL_TIMEOUT_MS} 毫秒）`) },
      });
    });
  });

  it('a tool that returns 10 MB: the call fails as too large, the run goes on, readers can read it', async () => {
    const tool = queryOrder(async () => ({ orderId: '88235', log: 'x'.repeat(10 * 1024 * 1024) }));
    await withTools(callingModel('query_order', { orderId: '88235' }), [tool], async (server) => {
      const runs = await campaign(server, '查一下订单 88235');
      expectEach(runs, 'tool returns 10 MB', {
        status: 'completed',
        code: '-',
        blocks: ['tool:failed', 'answer:done'],
        toolError: {
          code: 'tool_result_too_large',
          message: /工具返回的结果过大（1048578\d 字符，上限 1048576）/,
        },
      });
    });
  });

  it('an approved write tool that throws: its block fails, the run completes, its call is not left running', async () => {
    const cancelOrder: AnyTool = {
      name: 'cancel_order',
      title: '取消订单',
      description: 'Cancel an unshipped order.',
      parameters: z.object({ orderId: z.string() }),
      effect: 'write',
      async execute() {
        throw new Error('支付网关拒绝退款');
      },
    };
    await withTools(callingModel('cancel_order', { orderId: '88235' }), [cancelOrder], async (server) => {
      const runs = await campaign(server, '取消订单 88235', async (first) => {
        const paused = first.find((event) => event.type === 'run.paused');
        const toolCallId = paused?.type === 'run.paused' ? (paused.pending[0]?.toolCallId ?? '') : '';
        const runId = first[0]?.runId ?? '';
        // At once, as a person clicks: the server waits for the pause to be saved.
        const resumed = await readStream(
          await server.api(`/v1/runs/${runId}/confirmations/${toolCallId}`, {
            method: 'POST',
            body: JSON.stringify({ decision: 'approve' }),
          }),
        );
        expect(resumed.status).toBe(200);
        return [...first, ...resumed.events];
      });
      expectEach(runs, 'approved write throws', {
        status: 'completed',
        code: '-',
        blocks: ['tool:failed', 'confirm:approved', 'answer:done'],
        toolError: { code: 'tool_failed', message: /支付网关拒绝退款/ },
      });
      for (const { runId } of runs)
        expect(await server.store.listToolCalls(runId)).toMatchObject([
          { name: 'cancel_order', status: 'failed', error: { code: 'tool_failed' } },
        ]);
    });
  });
});

interface ChatRequestBody {
  messages: { role: string; content?: string | null }[];
}

interface Expected {
  status: string;
  code: string;
  blocks: string[];
  /** What the error block (or the run's error) says. */
  error?: RegExp;
  toolError?: { code: string; message: RegExp };
}

/** Every run of a case ended the same expected way; the tally goes into the campaign's summary. */
function expectEach(runs: readonly CaseRun[], label: string, expected: Expected): void {
  const keys = runs.map(({ events }) => {
    const finished = finishedEvent(events);
    const message = messageFrom(events);
    const blocks = message.blocks.map((block) => `${block.kind}:${block.status}`).join(',');
    return `${finished?.status ?? 'unfinished'} ${finished?.error?.code ?? '-'} ${blocks}`;
  });
  outcomes.push(
    `${label}: ${Object.entries(tally(keys))
      .map(([key, count]) => `${count}× ${key}`)
      .join(', ')}`,
  );
  expect(tally(keys)).toEqual({ [`${expected.status} ${expected.code} ${expected.blocks.join(',')}`]: RUNS });
  for (const { events } of runs) {
    const message = messageFrom(events);
    if (expected.error) {
      const errorBlock = message.blocks.find((block) => block.kind === 'error');
      expect(errorBlock?.kind === 'error' ? errorBlock.text : '').toMatch(expected.error);
      expect(finishedEvent(events)?.error?.message).toMatch(expected.error);
    }
    if (expected.toolError) {
      const tool = message.blocks.find((block) => block.kind === 'tool');
      expect(tool?.kind === 'tool' ? tool.error?.code : undefined).toBe(expected.toolError.code);
      expect(tool?.kind === 'tool' ? tool.error?.message : '').toMatch(expected.toolError.message);
    }
  }
}

/** A read tool the model can call; `execute` is the fault. */
function queryOrder(
  execute: (args: { orderId: string }) => Promise<unknown> = async (args) => args,
): AnyTool {
  return {
    name: 'query_order',
    title: '查询订单',
    description: 'Look an order up.',
    parameters: z.object({ orderId: z.string().regex(/^\d+$/) }),
    effect: 'read',
    execute,
  };
}

/** A tool call streamed as providers do: the id and name first, then the arguments in pieces. */
function toolCallFrames(name: string, argumentsText: string): string[] {
  const id = `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const half = Math.floor(argumentsText.length / 2);
  return [
    chunkFrame({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }),
    chunkFrame({ tool_calls: [{ index: 0, function: { arguments: argumentsText.slice(0, half) } }] }),
    chunkFrame({ tool_calls: [{ index: 0, function: { arguments: argumentsText.slice(half) } }] }),
    chunkFrame({}, 'tool_calls'),
  ];
}
