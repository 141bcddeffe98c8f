import { afterEach, describe, expect, it } from 'vitest';
import type { LoggedRunEvent, Message } from '../../../protocol/index.ts';
import type { RunLog } from '../../../runtime/index.ts';
import type { ChatModel, TokenUsage } from '../../chat-model.ts';
import { refusalMessage } from '../provider-refusal.ts';
import {
  type RecordedResponse,
  type ReplayedRequest,
  type ReplayProvider,
  type ReplayServer,
  startReplayServer,
} from '../replay-server.ts';
import {
  type ConformanceRuntime,
  errorTextOf,
  eventsOf,
  openConformanceRuntime,
  persistedMessage,
} from './conformance-runtime.ts';
import { RECORDED, RECORDED_CALL_IDS, RECORDED_USAGE, type RecordingName, recording } from './recordings.ts';

/**
 * The conformance scenarios every provider runs: its recorded streams replayed over real HTTP,
 * through the real adapter and the real runtime (RunManager over SQLite), each request checked
 * against the provider's documented rules by the replay server. A broken rule fails the run with
 * the provider's own refusal, which the assertions print with the rule's id.
 */

type ToolCallRecording = Exclude<RecordingName, 'answer'>;

/** The tool exchange a request sends back: the calls of the last turn that made calls, and the results. */
export interface ToolExchange {
  calls: { id: string; name: string; input: unknown }[];
  /** The call ids the results right after that turn answer, in order. */
  answered: string[];
  /** That assistant message as sent, for the provider's own checks. */
  assistant: Record<string, unknown>;
}

export interface ProviderConformanceOptions {
  provider: ReplayProvider;
  /** Names a variant of the provider's suite in the test titles, e.g. `adaptive, display omitted`. */
  variant?: string;
  /** The response for each recording; default `recording(provider, name)`. */
  recording?(name: RecordingName): RecordedResponse;
  /** The adapter under test, pointed at the replay server, as a user would configure it. */
  createModel(server: ReplayServer): ChatModel;
  /** Reads the tool exchange out of a request body in the provider's wire format. */
  exchangeOf(body: unknown): ToolExchange | undefined;
  /**
   * What the provider needs back on the assistant message that made `recorded`'s calls, beyond the
   * pairing (DeepSeek's and Kimi's `reasoning_content`, Anthropic's signed thinking block).
   */
  expectSentBack?(assistant: Record<string, unknown>, recorded: ToolCallRecording): void;
  /** What the first request must carry for the recording to be what the provider would stream. */
  expectFirstRequest?(body: Record<string, unknown>): void;
}

export function describeProviderConformance(options: ProviderConformanceOptions): void {
  const { provider } = options;
  const usage = RECORDED_USAGE[provider];

  const replayed = options.recording ?? ((name: RecordingName) => recording(provider, name));
  const title = options.variant === undefined ? provider : `${provider}, ${options.variant}`;

  describe(`${title} conformance (recorded streams, real runtime)`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });

    async function setUp(names: RecordingName[]) {
      const server = await startReplayServer({
        provider,
        responses: names.map(replayed),
      });
      cleanup.push(() => server.close());
      const runtime = await openConformanceRuntime(options.createModel(server));
      cleanup.push(() => runtime.close());
      return { server, runtime };
    }

    it('a. runs a two-step tool loop with reasoning; the second request gives back what the provider requires', async () => {
      const { server, runtime } = await setUp(['query-order', 'answer']);
      const log = await runtime.runs.startRun(runtime.userId, runtime.conversationId, '订单 88235 到哪了？');
      await runtime.runs.settled(log.runId);
      const message = await persistedMessage(runtime, log.runId);
      expectCompleted(message, server);
      expect(answerOf(message)).toBe(RECORDED.answer);
      expect(runtime.executed).toEqual([{ name: 'query_order', orderId: '88235' }]);
      expect(server.requests).toHaveLength(2);
      const first = server.requests[0]?.json as Record<string, unknown>;
      options.expectFirstRequest?.(first);
      expectExchange(server.requests[1], 'query-order', [{ name: 'query_order', orderId: '88235' }]);
      expectStepUsage(eventsOf(log), [
        { step: 1, finishReason: 'tool_calls', usage: usage['query-order'] },
        { step: 2, finishReason: 'stop', usage: usage.answer },
      ]);
      expectRunUsage(log, message, [usage['query-order'], usage.answer]);
    });

    it('b. executes two parallel calls of one turn and answers both in the next request', async () => {
      const { server, runtime } = await setUp(['query-two-orders', 'answer']);
      const log = await runtime.runs.startRun(
        runtime.userId,
        runtime.conversationId,
        '88235 和 88236 都到哪了？',
      );
      await runtime.runs.settled(log.runId);
      const message = await persistedMessage(runtime, log.runId);
      expectCompleted(message, server);
      expect(runtime.executed).toEqual([
        { name: 'query_order', orderId: '88235' },
        { name: 'query_order', orderId: '88236' },
      ]);
      expect(
        message.blocks.flatMap((block) =>
          block.kind === 'tool' ? [{ id: block.toolCallId, status: block.status }] : [],
        ),
      ).toEqual(RECORDED_CALL_IDS[provider]['query-two-orders'].map((id) => ({ id, status: 'done' })));
      expectExchange(server.requests[1], 'query-two-orders', [
        { name: 'query_order', orderId: '88235' },
        { name: 'query_order', orderId: '88236' },
      ]);
      expectStepUsage(eventsOf(log), [
        { step: 1, finishReason: 'tool_calls', usage: usage['query-two-orders'] },
        { step: 2, finishReason: 'stop', usage: usage.answer },
      ]);
      expectRunUsage(log, message, [usage['query-two-orders'], usage.answer]);
    });

    it('c. pauses a write for confirmation, then the approved turn goes on with a valid history', async () => {
      const { server, runtime } = await setUp(['cancel-order', 'answer']);
      const log = await runtime.runs.startRun(runtime.userId, runtime.conversationId, '帮我取消订单 88235');
      await runtime.runs.settled(log.runId);
      const toolCallId = expectPausedOnCancel(await persistedMessage(runtime, log.runId), runtime, server);
      const resumed = await runtime.runs.decide(runtime.userId, log.runId, toolCallId, 'approve');
      await runtime.runs.settled(log.runId);
      const message = await persistedMessage(runtime, log.runId);
      expectCompleted(message, server);
      expect(runtime.executed).toEqual([{ name: 'cancel_order', orderId: '88235' }]);
      expect(answerOf(message)).toBe(RECORDED.answer);
      expectExchange(server.requests[1], 'cancel-order', [{ name: 'cancel_order', orderId: '88235' }]);
      expectStepUsage(eventsOf(resumed), [
        { step: 1, finishReason: 'tool_calls', usage: usage['cancel-order'] },
        { step: 2, finishReason: 'stop', usage: usage.answer },
      ]);
      expectRunUsage(resumed, message, [usage['cancel-order'], usage.answer]);
    });

    it('d. resumes after a restart between turns, still sending back what the provider needs', async () => {
      const { server, runtime } = await setUp(['cancel-order', 'answer']);
      const log = await runtime.runs.startRun(runtime.userId, runtime.conversationId, '帮我取消订单 88235');
      await runtime.runs.settled(log.runId);
      const toolCallId = expectPausedOnCancel(await persistedMessage(runtime, log.runId), runtime, server);
      // A new manager, store and adapter on the same SQLite file: only the checkpoint remembers the turn.
      await runtime.restart(options.createModel(server));
      const resumed = await runtime.runs.decide(runtime.userId, log.runId, toolCallId, 'approve');
      await runtime.runs.settled(log.runId);
      const message = await persistedMessage(runtime, log.runId);
      expectCompleted(message, server);
      expect(runtime.executed).toEqual([{ name: 'cancel_order', orderId: '88235' }]);
      expect(answerOf(message)).toBe(RECORDED.answer);
      expectExchange(server.requests[1], 'cancel-order', [{ name: 'cancel_order', orderId: '88235' }]);
      // This instance's log holds only the resumed stretch; the run's total still counts both steps.
      expectStepUsage(eventsOf(resumed, log.lastSeq), [
        { step: 2, finishReason: 'stop', usage: usage.answer },
      ]);
      expectRunUsage(resumed, message, [usage['cancel-order'], usage.answer], log.lastSeq);
    });

    /** The run completed: or else what the provider refused, with the rule, and the run's error block. */
    function expectCompleted(message: Message, server: ReplayServer): void {
      const refusals = server
        .refusals()
        .map((refusal) => `${refusal.rule}: ${refusal.status} ${refusalMessage(refusal)}`);
      expect({ status: message.status, refusals, error: errorTextOf(message) }).toEqual({
        status: 'completed',
        refusals: [],
        error: '',
      });
    }

    function expectPausedOnCancel(
      message: Message,
      runtime: ConformanceRuntime,
      server: ReplayServer,
    ): string {
      expect(
        {
          status: message.status,
          error: errorTextOf(message),
          refusals: server.refusals().map(refusalMessage),
        },
        'the run should pause on the write before anything else',
      ).toEqual({ status: 'paused', error: '', refusals: [] });
      expect(message.pause?.pending.map((pending) => pending.name)).toEqual(['cancel_order']);
      expect(runtime.executed).toEqual([]);
      const toolCallId = message.pause?.pending[0]?.toolCallId ?? '';
      expect(toolCallId).toBe(RECORDED_CALL_IDS[provider]['cancel-order'][0]);
      return toolCallId;
    }

    /** The request after `recorded`'s calls pairs every call with its result, and gives back what it must. */
    function expectExchange(
      request: ReplayedRequest | undefined,
      recorded: ToolCallRecording,
      calls: { name: string; orderId: string }[],
    ): void {
      expect(request, 'the answer turn should have been requested').toBeDefined();
      const exchange = options.exchangeOf(request?.json);
      const ids = RECORDED_CALL_IDS[provider][recorded];
      expect(exchange?.calls).toEqual(
        calls.map((call, index) => ({ id: ids[index], name: call.name, input: { orderId: call.orderId } })),
      );
      expect(exchange?.answered).toEqual(ids);
      if (exchange !== undefined) options.expectSentBack?.(exchange.assistant, recorded);
    }
  });
}

function answerOf(message: Message): string {
  return message.blocks.flatMap((block) => (block.kind === 'answer' ? [block.text] : [])).join('');
}

function expectStepUsage(
  events: LoggedRunEvent[],
  expected: { step: number; finishReason: string; usage: TokenUsage }[],
): void {
  const steps = events.flatMap((event) =>
    event.type === 'step.finished'
      ? [{ step: event.step, finishReason: event.finishReason, usage: event.usage }]
      : [],
  );
  expect(steps).toEqual(expected);
}

/** `run.finished` and the persisted message carry the steps' sum, details only where reported. */
function expectRunUsage(log: RunLog, message: Message, steps: TokenUsage[], afterSeq = 0): void {
  const total = steps.reduce(sumUsage);
  const finished = eventsOf(log, afterSeq).find((event) => event.type === 'run.finished');
  expect(finished?.type === 'run.finished' ? finished.usage : undefined).toEqual(total);
  expect(message.usage).toEqual(total);
}

function sumUsage(total: TokenUsage, step: TokenUsage): TokenUsage {
  const sum: TokenUsage = {
    inputTokens: total.inputTokens + step.inputTokens,
    outputTokens: total.outputTokens + step.outputTokens,
  };
  for (const detail of ['reasoningTokens', 'cachedInputTokens'] as const) {
    if (total[detail] !== undefined || step[detail] !== undefined) {
      sum[detail] = (total[detail] ?? 0) + (step[detail] ?? 0);
    }
  }
  return sum;
}
