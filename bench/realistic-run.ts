import type { LoggedRunEvent, RunEventDraft, TextBlockKind } from '../src/protocol/index.ts';

/**
 * A deterministic, realistic run for the protocol benchmarks: a customer-service agent reasons, looks
 * up an order and its shipment with two tools, and streams a long Chinese answer as many small
 * `block.delta` events, the way a model streams tokens. The answer dominates the event count on
 * purpose: per-event overhead, not payload size, is what a streaming protocol pays for.
 */

export interface RealisticRunOptions {
  /** Total number of events, `run.started` to `run.finished` inclusive. Default 20,000. */
  eventCount?: number;
  /** Seed of the pseudo-random chunking and timing, so every run of the benchmark sees the same bytes. */
  seed?: number;
}

export interface RealisticRun {
  events: LoggedRunEvent[];
  /** The answer block's text as the deltas spell it, to check what `reduce` builds. */
  answerText: string;
  answerBlockId: string;
  answerDeltaCount: number;
  blockCount: number;
}

const RUN_ID = 'run_bench_01J9ZK3Q';
const START_AT = 1_750_000_000_000;
const REASONING_DELTA_COUNT = 200;
/** 好的，我先帮您查一下订单和物流信息，请稍等～ as the model streamed it. */
const OPENING_ANSWER_PIECES = ['好的，我', '先帮您查', '一下订单', '和物流信息', '，请稍', '等～'];
const OPENING_ANSWER_DELTA_COUNT = OPENING_ANSWER_PIECES.length;
/** Every event that is not a reasoning or answer delta: see the layout in `createRealisticRun`. */
const FIXED_EVENT_COUNT = 20;

const REASONING_SENTENCES = [
  '用户说订单一直没收到，想知道物流到哪了，如果太慢就想退款。',
  '先查最近的订单，确认是哪一笔，再查物流轨迹。',
  '订单88235显示已发货，承运商是顺丰，需要看最新的节点。',
  '物流停在中转站超过48小时，属于异常延迟，可以先安抚用户并给出选项。',
  '已发货的订单不能直接取消，只能拒收或签收后申请退货退款。',
  '回答要先说结论，再给步骤，语气友好，不要承诺做不到的时效。',
];

/** Short paragraphs of the kind a support assistant writes: facts, steps, reassurance, some emoji. */
const ANSWER_PARAGRAPHS = [
  '您好！我已经帮您查到订单 88235 的情况了😊',
  '这笔订单购买的是 Apple Watch Series 12（深空灰色、42毫米、GPS），实付金额 ¥3378.00，已于 6 月 14 日发货📦。',
  '目前包裹由顺丰速运承运，运单号 SF1428730956，最新状态是“已到达【上海浦东转运中心】”，之后暂时没有新的更新。',
  '包裹在中转站停留超过 48 小时，确实比平时慢了一些，给您带来不便，真的很抱歉🙏',
  '您可以这样处理：\n1. 继续等待：一般 1～2 天内会恢复派送，我会帮您持续关注；\n2. 催促派送：我可以提交催件申请，顺丰通常会在 24 小时内回复；\n3. 拒收退款：如果快递员上门时您不想要了，可以直接拒收，包裹退回仓库后 3～5 个工作日内原路退款。',
  '需要提醒的是，订单已经发货，所以暂时无法直接取消哦。',
  '如果您选择签收后再退货，请保持商品和包装完好，在“我的订单 → 申请售后”里提交退货退款即可，7 天内支持无理由退货✅',
  '退款会退回到您付款时使用的账户：微信支付一般即时到账，银行卡需要 1～3 个工作日。',
  '另外，这笔订单使用了一张满 3000 减 200 的优惠券，退款成功后优惠券会自动返还到您的账户，有效期不变。',
  '请问您希望我帮您提交催件申请，还是先继续等待呢？如果还有其他问题，随时告诉我～👍',
  '**温馨提示**：为保障您的账户安全，客服不会向您索要验证码或银行卡密码，请勿泄露给任何人。',
];

/** mulberry32: tiny, fast and good enough to vary chunk sizes reproducibly. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function randomInteger(random: () => number, minimum: number, maximum: number): number {
  return minimum + Math.floor(random() * (maximum - minimum + 1));
}

/**
 * Endless text cut into model-sized pieces of 2–8 characters. Characters are code points, so an
 * emoji is never split into lone surrogates (which JSON would escape and no model would send).
 */
function createChunker(paragraphs: readonly string[], separator: string, random: () => number) {
  const characters = Array.from(paragraphs.join(separator) + separator);
  let position = 0;
  return (): string => {
    const size = randomInteger(random, 2, 8);
    let piece = '';
    for (let taken = 0; taken < size; taken += 1) {
      piece += characters[position] ?? '';
      position = (position + 1) % characters.length;
    }
    return piece;
  };
}

/** Stamps drafts with the run id, consecutive `seq` from 1, and a clock that only moves forward. */
class RunLog {
  readonly events: LoggedRunEvent[] = [];
  #at = START_AT;
  readonly #blockStartedAt = new Map<string, number>();

  tick(milliseconds: number): void {
    this.#at += milliseconds;
  }

  append(draft: RunEventDraft): void {
    const event: LoggedRunEvent = { ...draft, runId: RUN_ID, seq: this.events.length + 1, at: this.#at };
    if (event.type === 'block.started') this.#blockStartedAt.set(event.blockId, event.at);
    this.events.push(event);
  }

  /** `block.ended` with the timing fields the reducer copies onto the block. */
  end(blockId: string, status?: 'done'): void {
    const startedAt = this.#blockStartedAt.get(blockId) ?? this.#at;
    this.append({
      type: 'block.ended',
      blockId,
      endedAt: this.#at,
      durationMs: this.#at - startedAt,
      ...(status === undefined ? {} : { status }),
    });
  }
}

/** A text block: started, `deltaCount` deltas a few tens of milliseconds apart, ended. Returns its text. */
function streamTextBlock(
  log: RunLog,
  random: () => number,
  block: { blockId: string; kind: TextBlockKind; deltaCount: number; nextPiece: () => string },
): string {
  log.append({ type: 'block.started', blockId: block.blockId, kind: block.kind });
  let text = '';
  for (let index = 0; index < block.deltaCount; index += 1) {
    log.tick(randomInteger(random, 8, 45));
    const piece = block.nextPiece();
    text += piece;
    log.append({ type: 'block.delta', blockId: block.blockId, text: piece });
  }
  log.end(block.blockId, 'done');
  return text;
}

export function createRealisticRun(options: RealisticRunOptions = {}): RealisticRun {
  const eventCount = options.eventCount ?? 20_000;
  const random = createRandom(options.seed ?? 20_250_614);
  const answerDeltaCount =
    eventCount - FIXED_EVENT_COUNT - REASONING_DELTA_COUNT - OPENING_ANSWER_DELTA_COUNT;
  if (answerDeltaCount < 1) {
    const minimum = FIXED_EVENT_COUNT + REASONING_DELTA_COUNT + OPENING_ANSWER_DELTA_COUNT + 1;
    throw new Error(`eventCount must be at least ${minimum}`);
  }
  const log = new RunLog();

  // 1 event
  log.append({ type: 'run.started', conversationId: 'conv_7f3a9c', messageId: 'msg_01J9ZK3R' });

  // 2 events + reasoning deltas
  log.tick(850);
  streamTextBlock(log, random, {
    blockId: 'blk_reasoning',
    kind: 'reasoning',
    deltaCount: REASONING_DELTA_COUNT,
    nextPiece: createChunker(REASONING_SENTENCES, '', random),
  });

  // 2 events + opening answer deltas: the short "let me check" line before the tools run
  const openingPieces = [...OPENING_ANSWER_PIECES];
  streamTextBlock(log, random, {
    blockId: 'blk_opening',
    kind: 'answer',
    deltaCount: OPENING_ANSWER_DELTA_COUNT,
    nextPiece: () => openingPieces.shift() ?? '',
  });

  // 7 events: a tool whose arguments stream as text, then running, then done with a small result
  log.append({
    type: 'block.started',
    blockId: 'blk_query_order',
    kind: 'tool',
    toolCallId: 'call_query_order',
    name: 'query_order',
    title: '订单查询',
  });
  for (const argumentsText of ['{"limit":', '5,"status":', '"shipped"}']) {
    log.tick(15);
    log.append({ type: 'block.delta', blockId: 'blk_query_order', text: argumentsText });
  }
  const queryArguments = { limit: 5, status: 'shipped' };
  log.append({
    type: 'block.updated',
    blockId: 'blk_query_order',
    kind: 'tool',
    toolCallId: 'call_query_order',
    status: 'running',
    args: queryArguments,
  });
  log.tick(240);
  log.append({
    type: 'block.updated',
    blockId: 'blk_query_order',
    kind: 'tool',
    toolCallId: 'call_query_order',
    status: 'done',
    result: {
      orders: [
        {
          orderId: '88235',
          product: 'Apple Watch Series 12',
          spec: '深空灰色、42毫米、GPS',
          paidAmount: '3378.00',
          status: '已发货',
          shippedAt: '2025-06-14T10:32:00+08:00',
        },
      ],
    },
  });
  log.end('blk_query_order');

  // 1 event: a transient notice while the slow tool runs
  log.append({ type: 'run.hint', code: 'slow_tool', text: '正在查询物流信息，请稍候…' });

  // 4 events: a tool with arguments known up front, running, done, ended
  log.append({
    type: 'block.started',
    blockId: 'blk_track_shipment',
    kind: 'tool',
    toolCallId: 'call_track_shipment',
    name: 'track_shipment',
    title: '物流查询',
    args: { orderId: '88235' },
  });
  log.append({
    type: 'block.updated',
    blockId: 'blk_track_shipment',
    kind: 'tool',
    toolCallId: 'call_track_shipment',
    status: 'running',
  });
  log.tick(1_300);
  log.append({
    type: 'block.updated',
    blockId: 'blk_track_shipment',
    kind: 'tool',
    toolCallId: 'call_track_shipment',
    status: 'done',
    result: {
      carrier: '顺丰速运',
      trackingNumber: 'SF1428730956',
      status: 'in_transit',
      lastEvent: { at: '2025-06-15T21:07:00+08:00', location: '上海浦东转运中心', description: '快件已到达' },
      delayedHours: 52,
    },
  });
  log.end('blk_track_shipment');
  log.tick(600);

  // 2 events + answer deltas: the bulk of the run
  const answerBlockId = 'blk_answer';
  const answerText = streamTextBlock(log, random, {
    blockId: answerBlockId,
    kind: 'answer',
    deltaCount: answerDeltaCount,
    nextPiece: createChunker(ANSWER_PARAGRAPHS, '\n\n', random),
  });

  // 1 event
  log.append({
    type: 'run.finished',
    status: 'completed',
    usage: { inputTokens: 3_812, outputTokens: answerDeltaCount + REASONING_DELTA_COUNT },
  });

  if (log.events.length !== eventCount) {
    throw new Error(`built ${log.events.length} events, expected ${eventCount}: update FIXED_EVENT_COUNT`);
  }
  return { events: log.events, answerText, answerBlockId, answerDeltaCount, blockCount: 5 };
}
