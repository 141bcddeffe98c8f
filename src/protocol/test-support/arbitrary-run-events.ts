import fc from 'fast-check';
import type {
  ConfirmBlockStatus,
  ConfirmDetail,
  ErrorInfo,
  TextBlockKind,
  TextBlockStatus,
  ToolBlockStatus,
} from '../block.ts';
import { ToolBlockStatusSchema } from '../block.ts';
import type { FinishedRunStatus, LoggedRunEvent, PauseReason, PendingCall } from '../run-event.ts';
import type { TokenUsage } from '../token-usage.ts';
import { createEventFactory } from './event-factory.ts';

/**
 * A value that survives `JSON.stringify` + `JSON.parse` unchanged and deep-equals its copy: plain
 * objects only, no `-0`, no `undefined`, no `__proto__` keys (`fc.jsonValue` allows `-0`).
 */
export function arbitraryJsonValue(): fc.Arbitrary<unknown> {
  const key = fc.constantFrom('orderId', 'status', 'items', 'amount', 'name', 'limit', '说明', 'a b');
  const leaf = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.constantFrom(3378, 0.5, 1e21, -12.25),
    arbitraryText(),
  );
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((entries) => Object.fromEntries(entries)),
    ),
  }));
  return value;
}

/** Short text as models stream it: Chinese, emoji, line breaks (CR too), quotes, or anything. */
export function arbitraryText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      '我先',
      '看下',
      '取消订单的',
      '具体办理流程。',
      '……',
      'Apple Watch',
      '😀',
      '\n',
      '\r\n',
      '"',
    ),
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 4 }),
  );
}

/** One intended step; the interpreter turns it into a valid event or skips it (see below). */
type Step =
  | { op: 'text'; kind: TextBlockKind }
  | { op: 'tool'; name: string; title: string; args: unknown }
  | { op: 'confirm'; pick: number; title: string; description: string; details: ConfirmDetail[] }
  | { op: 'delta'; pick: number; text: string }
  | {
      op: 'toolUpdate';
      pick: number;
      status: ToolBlockStatus | undefined;
      args: unknown;
      result: unknown;
      error: ErrorInfo | undefined;
    }
  | {
      op: 'confirmUpdate';
      pick: number;
      status: Exclude<ConfirmBlockStatus, 'pending'>;
      reason: string | undefined;
    }
  | { op: 'end'; pick: number; status: Exclude<TextBlockStatus, 'streaming'> | undefined }
  | { op: 'hint'; code: string; text: string }
  | { op: 'step'; finishReason: 'stop' | 'tool_calls' | 'length'; usage: TokenUsage | undefined }
  | { op: 'pause'; reason: PauseReason; count: number }
  | { op: 'resume' };

interface TimedStep {
  step: Step;
  delayMs: number;
}

interface Finish {
  status: FinishedRunStatus;
  reason: string | undefined;
  error: ErrorInfo | undefined;
}

/** `fc.record` may build null-prototype objects; JSON never does, so the data here must not either. */
const plainRecord = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> =>
  fc.record(model, { noNullPrototype: true });

const optional = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arbitrary, { nil: undefined });

const errorInfo: fc.Arbitrary<ErrorInfo> = plainRecord({
  code: fc.constantFrom('tool_timeout', 'order_not_found', 'upstream_error'),
  message: arbitraryText(),
});

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  plainRecord({ op: fc.constant('text'), kind: fc.constantFrom('reasoning', 'answer', 'error') }),
  plainRecord({
    op: fc.constant('tool'),
    name: fc.constantFrom('load_skill', 'query_order', 'cancel_order'),
    title: fc.constantFrom('加载技能手册', '订单查询', '取消订单', ''),
    args: optional(arbitraryJsonValue()),
  }),
  plainRecord({
    op: fc.constant('confirm'),
    pick: fc.nat(),
    title: fc.constantFrom('取消订单', ''),
    description: arbitraryText(),
    details: fc.array(plainRecord({ label: arbitraryText(), value: arbitraryText() }), { maxLength: 3 }),
  }),
  // Deltas are the bulk of a real stream.
  { weight: 4, arbitrary: plainRecord({ op: fc.constant('delta'), pick: fc.nat(), text: arbitraryText() }) },
  {
    weight: 2,
    arbitrary: plainRecord({
      op: fc.constant('toolUpdate'),
      pick: fc.nat(),
      status: optional(fc.constantFrom(...ToolBlockStatusSchema.options)),
      args: optional(arbitraryJsonValue()),
      result: optional(arbitraryJsonValue()),
      error: optional(errorInfo),
    }),
  },
  {
    weight: 2,
    arbitrary: plainRecord({
      op: fc.constant('confirmUpdate'),
      pick: fc.nat(),
      status: fc.constantFrom('approved', 'rejected', 'expired'),
      reason: optional(arbitraryText()),
    }),
  },
  {
    weight: 2,
    arbitrary: plainRecord({
      op: fc.constant('end'),
      pick: fc.nat(),
      status: optional(fc.constantFrom('done', 'cancelled', 'interrupted')),
    }),
  },
  plainRecord({
    op: fc.constant('hint'),
    code: fc.constantFrom('max_iterations', 'slow_tool'),
    text: fc.constantFrom('已达到最大迭代次数，正在生成当前执行结果的总结', '工具响应较慢，请稍候'),
  }),
  plainRecord({
    op: fc.constant('step'),
    finishReason: fc.constantFrom('stop', 'tool_calls', 'length'),
    // Some providers report no usage, some only the two totals, some the details too.
    usage: optional(
      fc.record(
        {
          inputTokens: fc.nat({ max: 200_000 }),
          outputTokens: fc.nat({ max: 50_000 }),
          reasoningTokens: fc.nat({ max: 50_000 }),
          cachedInputTokens: fc.nat({ max: 200_000 }),
        },
        { requiredKeys: ['inputTokens', 'outputTokens'], noNullPrototype: true },
      ),
    ),
  }),
  plainRecord({
    op: fc.constant('pause'),
    reason: fc.constantFrom('confirmation', 'tool_result'),
    count: fc.nat(),
  }),
  plainRecord({ op: fc.constant('resume') }),
) as fc.Arbitrary<Step>;

const finishArbitrary: fc.Arbitrary<Finish> = plainRecord({
  status: fc.constantFrom('completed', 'cancelled', 'failed', 'interrupted'),
  reason: optional(fc.constantFrom('user_stop', 'server_restart')),
  error: optional(errorInfo),
});

export interface ArbitraryRunEventsOptions {
  runId?: string;
  /** Upper bound on intended steps; the sequence has at most this many events plus two. */
  maxSteps?: number;
}

/**
 * Random valid event logs of one run, with `seq` 1..n contiguous and `at` never going back:
 * `run.started` first; then text blocks (deltas, an end with an optional final status), tool blocks
 * (argument deltas, updates of status/args/result/error, an end), confirm blocks for an existing tool
 * call, at most one per call (a decision update, an end), hints, and pause/resume pairs; optionally `run.finished` last.
 * No block is ended twice and nothing is sent to a closed block. While paused only what a paused run
 * can see happens (a decision on a confirm card, a hint); any other step resumes the run first.
 * `done` is not generated: it is not part of the log.
 *
 * Steps are generated first and interpreted into events, so a step that does not fit (a delta when
 * no block is open) is skipped; that keeps every sequence valid and shrinking simple.
 */
export function arbitraryRunEvents(options: ArbitraryRunEventsOptions = {}): fc.Arbitrary<LoggedRunEvent[]> {
  const runId = options.runId ?? 'run_prop';
  const timedStep: fc.Arbitrary<TimedStep> = plainRecord({
    step: stepArbitrary,
    delayMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_000 })),
  });
  return fc
    .tuple(
      // `size: 'max'` spreads lengths over the whole range; the default keeps most logs tiny.
      fc.array(timedStep, { maxLength: options.maxSteps ?? 40, size: 'max' }),
      fc.option(finishArbitrary, { nil: undefined, freq: 2 }),
      fc.integer({ min: 0, max: 2_000_000_000_000 }),
    )
    .map(([steps, finish, startAt]) => interpret(runId, steps, finish, startAt));
}

interface OpenBlock {
  blockId: string;
  kind: 'text' | 'tool' | 'confirm';
  toolCallId?: string;
  name?: string;
  args?: unknown;
  /** A confirm card closes only after its decision (or expiry) arrived. */
  decided?: boolean;
}

function interpret(
  runId: string,
  steps: TimedStep[],
  finish: Finish | undefined,
  startAt: number,
): LoggedRunEvent[] {
  const f = createEventFactory(runId, { startAt, stepMs: 1 });
  const events: LoggedRunEvent[] = [f.runStarted()];
  const open: OpenBlock[] = [];
  const toolCalls: OpenBlock[] = [];
  const confirmed = new Set<string>();
  let nextBlock = 1;
  let nextStep = 1;
  let pause: { reason: PauseReason; pending: PendingCall[] } | null = null;

  const pickFrom = (pick: number, candidates: OpenBlock[]) =>
    candidates[pick % Math.max(candidates.length, 1)];
  const pickOpen = (pick: number, kinds: OpenBlock['kind'][]) =>
    pickFrom(
      pick,
      open.filter((block) => kinds.includes(block.kind)),
    );
  const pickClosable = (pick: number, kinds: OpenBlock['kind'][]) =>
    pickFrom(
      pick,
      open.filter(
        (block) => kinds.includes(block.kind) && (block.kind !== 'confirm' || block.decided === true),
      ),
    );
  const close = (block: OpenBlock) => {
    open.splice(open.indexOf(block), 1);
  };

  for (const { step, delayMs } of steps) {
    f.tick(delayMs);
    const allowedWhilePaused =
      step.op === 'hint' ||
      step.op === 'confirmUpdate' ||
      step.op === 'resume' ||
      (step.op === 'end' && pickClosable(step.pick, ['confirm']) !== undefined);
    if (pause !== null && !allowedWhilePaused) {
      events.push(
        f.resumed(
          pause.reason,
          pause.pending.map((call) => call.toolCallId),
        ),
      );
      pause = null;
    }
    switch (step.op) {
      case 'text': {
        const blockId = `b${nextBlock++}`;
        events.push(f.textStarted(blockId, step.kind));
        open.push({ blockId, kind: 'text' });
        break;
      }
      case 'tool': {
        const n = nextBlock++;
        const block: OpenBlock = { blockId: `b${n}`, kind: 'tool', toolCallId: `call_${n}`, name: step.name };
        if (step.args !== undefined) block.args = step.args;
        events.push(
          f.toolStarted(block.blockId, {
            toolCallId: `call_${n}`,
            name: step.name,
            title: step.title,
            args: step.args,
          }),
        );
        open.push(block);
        toolCalls.push(block);
        break;
      }
      case 'confirm': {
        // One card per write call, as the server sends it.
        const unconfirmed = toolCalls.filter((call) => !confirmed.has(call.toolCallId ?? ''));
        const call = unconfirmed[step.pick % Math.max(unconfirmed.length, 1)];
        if (call?.toolCallId === undefined) break;
        confirmed.add(call.toolCallId);
        const blockId = `b${nextBlock++}`;
        events.push(
          f.confirmStarted(blockId, {
            toolCallId: call.toolCallId,
            title: step.title,
            description: step.description,
            details: step.details,
          }),
        );
        open.push({ blockId, kind: 'confirm', toolCallId: call.toolCallId });
        break;
      }
      case 'delta': {
        const block = pickOpen(step.pick, ['text', 'tool']);
        if (block !== undefined) events.push(f.delta(block.blockId, step.text));
        break;
      }
      case 'toolUpdate': {
        const block = pickOpen(step.pick, ['tool']);
        if (block?.toolCallId === undefined) break;
        if (step.args !== undefined) block.args = step.args;
        events.push(
          f.toolUpdated(block.blockId, block.toolCallId, {
            status: step.status,
            args: step.args,
            result: step.result,
            error: step.error,
          }),
        );
        break;
      }
      case 'confirmUpdate': {
        const block = pickOpen(step.pick, ['confirm']);
        if (block === undefined) break;
        const decision =
          step.status === 'expired'
            ? undefined
            : {
                decision: step.status === 'approved' ? ('approve' as const) : ('reject' as const),
                decidedAt: f.now,
                ...(step.reason !== undefined ? { reason: step.reason } : {}),
              };
        events.push(f.confirmUpdated(block.blockId, step.status, decision));
        block.decided = true;
        break;
      }
      case 'end': {
        const block = pickClosable(step.pick, pause === null ? ['text', 'tool', 'confirm'] : ['confirm']);
        if (block === undefined) break;
        events.push(f.ended(block.blockId, block.kind === 'text' ? step.status : undefined));
        close(block);
        break;
      }
      case 'hint':
        events.push(f.hint(step.code, step.text));
        break;
      case 'step':
        events.push(
          f.stepFinished(nextStep++, {
            finishReason: step.finishReason,
            ...(step.usage !== undefined ? { usage: step.usage } : {}),
          }),
        );
        break;
      case 'pause': {
        if (pause !== null || toolCalls.length === 0) break;
        const first = step.count % toolCalls.length;
        const pending = toolCalls.slice(first, first + 1 + (step.count % 3)).map((call) => ({
          toolCallId: call.toolCallId ?? '',
          name: call.name ?? '',
          ...(call.args !== undefined ? { args: call.args } : {}),
        }));
        events.push(f.paused(step.reason, pending));
        pause = { reason: step.reason, pending };
        break;
      }
      case 'resume':
        if (pause === null) break;
        events.push(
          f.resumed(
            pause.reason,
            pause.pending.map((call) => call.toolCallId),
          ),
        );
        pause = null;
        break;
    }
  }
  if (finish !== undefined) {
    // A producer closes every text and tool block before run.finished (the reducer reports any left
    // open); text cut short by a stop or a failure says so in its final status.
    const cutShort = finish.status === 'cancelled' ? 'cancelled' : 'interrupted';
    for (const block of open.filter((candidate) => candidate.kind !== 'confirm')) {
      f.tick(1);
      events.push(
        f.ended(
          block.blockId,
          block.kind === 'text' ? (finish.status === 'completed' ? 'done' : cutShort) : undefined,
        ),
      );
    }
    events.push(
      f.finished(finish.status, {
        ...(finish.reason !== undefined ? { reason: finish.reason } : {}),
        ...(finish.error !== undefined ? { error: finish.error } : {}),
      }),
    );
  }
  return events;
}
