/**
 * A deterministic OpenAI-compatible streaming response, as bytes on the wire, for the adapter-parsing
 * benchmark: one thinking-mode turn that reasons, says a sentence and calls a tool, the shape of a
 * customer-service agent's first step.
 *
 * The frames copy DeepSeek's as recorded from its API in the public test fixtures of
 * neuraxes/neurouter (https://github.com/neuraxes/neurouter/blob/HEAD/internal/data/upstream/deepseek/deepseek_test.go,
 * deepseek-reasoner and deepseek-chat, 2025-09): every chunk repeats `id`, `object`, `created`,
 * `model` and `system_fingerprint`; the first delta carries `role` with `content: null` and an empty
 * `reasoning_content`; reasoning deltas send `content: null`, answer deltas `reasoning_content: null`;
 * a tool call opens with `index`, `id`, `type` and the name with empty arguments, then sends the
 * arguments in fragments of a few characters; the finish chunk has `content: ""` and
 * `finish_reason: "tool_calls"`. In those fixtures `usage` rides on the finish chunk; here it comes
 * on a chunk of its own with `choices: []` just before `[DONE]`, the shape OpenAI's
 * `stream_options.include_usage` contract describes
 * (https://platform.openai.com/docs/api-reference/chat/create), which the adapter asks for and most
 * compatible servers follow: one more chunk for the parser, the costlier case. Usage carries
 * DeepSeek's fields (cache hit and miss, reasoning tokens). Text comes in pieces of 1 to 4
 * characters, about one streamed token of Chinese each.
 */

export interface OpenAiCompatibleStreamOptions {
  /** JSON chunks in the stream (`data:` lines other than `[DONE]`). Default 2,000; at least 10. */
  chunkCount?: number;
}

export interface OpenAiCompatibleStream {
  /** The response body: `data: <json>\n\n` per chunk, then `data: [DONE]\n\n`. */
  bytes: Uint8Array;
  /** The JSON of every chunk, in order, as it appears after `data: ` (no `[DONE]`). */
  dataLines: string[];
  /** How many chunks of each kind, for the report. */
  mix: Record<'role' | 'reasoning' | 'content' | 'tool call' | 'finish' | 'usage', number>;
  /** What a correct parser must read from it. */
  expected: {
    reasoningText: string;
    answerText: string;
    toolCall: { id: string; name: string; arguments: string };
    finishReason: 'tool_calls';
    inputTokens: number;
    outputTokens: number;
  };
}

const RESPONSE_ID = '1986f9e8-0b5d-4331-88da-d2d2d8dd7a70';
const CREATED = 1_759_075_956;
const MODEL = 'deepseek-reasoner';
const FINGERPRINT = 'fp_8333852bec_prod0820_fp8_kvcache';
const TOOL_CALL_ID = 'call_00_Sq0n5HVeFHkS1mBrIGbwBQcK';
const TOOL_NAME = 'cancel_order';

/** Shares of the stream: reasoning dominates, as in a thinking model's turn. */
const REASONING_SHARE = 0.6;
const CONTENT_SHARE = 0.3;
/** The role chunk, the tool call's opening chunk, the finish chunk and the usage chunk. */
const FIXED_CHUNK_COUNT = 4;

const REASONING_SOURCE =
  '用户想取消那块表的订单，先确认是哪一笔：最近的订单是88235，Apple Watch，状态待发货。' +
  '待发货的订单可以直接取消，取消是写操作，需要用户在确认卡片上确认后才执行。' +
  '取消后款项原路退回，优惠券返还；回答先说结论，再说退款时效，语气友好。';
const ANSWER_SOURCE =
  '好的，我查到您的订单 88235（Apple Watch Series 12，深空灰色）还没有发货，可以直接取消。' +
  '我已经为您发起取消申请，请在下方卡片上确认，确认后款项会在 1～3 个工作日内原路退回😊';
/** Piece sizes in characters, cycled: the mix of one- and two-character tokens Chinese text streams as. */
const PIECE_SIZES = [2, 1, 3, 2, 1, 2, 4, 1, 2, 3];

export function createOpenAiCompatibleStream(
  options: OpenAiCompatibleStreamOptions = {},
): OpenAiCompatibleStream {
  const chunkCount = options.chunkCount ?? 2_000;
  if (!Number.isInteger(chunkCount) || chunkCount < 10) {
    throw new RangeError(`chunkCount must be an integer of at least 10, got ${chunkCount}`);
  }
  const variable = chunkCount - FIXED_CHUNK_COUNT;
  const reasoningCount = Math.round(variable * REASONING_SHARE);
  const contentCount = Math.round(variable * CONTENT_SHARE);
  const argumentCount = variable - reasoningCount - contentCount;

  const reasoningPieces = pieces(REASONING_SOURCE, reasoningCount);
  const answerPieces = pieces(ANSWER_SOURCE, contentCount);
  const argumentsText = toolArguments(argumentCount);
  const argumentPieces = splitEvenly(argumentsText, argumentCount);

  const frames: unknown[] = [
    chunk({ role: 'assistant', content: null, reasoning_content: '' }),
    ...reasoningPieces.map((text) => chunk({ content: null, reasoning_content: text })),
    ...answerPieces.map((text) => chunk({ content: text, reasoning_content: null })),
    chunk({
      tool_calls: [
        { index: 0, id: TOOL_CALL_ID, type: 'function', function: { name: TOOL_NAME, arguments: '' } },
      ],
    }),
    ...argumentPieces.map((text) => chunk({ tool_calls: [{ index: 0, function: { arguments: text } }] })),
    chunk({ content: '' }, 'tool_calls'),
  ];
  const inputTokens = 1_843;
  const reasoningTokens = reasoningCount;
  const outputTokens = reasoningCount + contentCount + argumentCount + 8;
  frames.push({
    ...envelope(),
    choices: [],
    usage: {
      prompt_tokens: inputTokens,
      completion_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
      prompt_tokens_details: { cached_tokens: 1_792 },
      completion_tokens_details: { reasoning_tokens: reasoningTokens },
      prompt_cache_hit_tokens: 1_792,
      prompt_cache_miss_tokens: inputTokens - 1_792,
    },
  });

  const dataLines = frames.map((frame) => JSON.stringify(frame));
  const body = `${dataLines.map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`;
  return {
    bytes: new TextEncoder().encode(body),
    dataLines,
    mix: {
      role: 1,
      reasoning: reasoningCount,
      content: contentCount,
      'tool call': 1 + argumentCount,
      finish: 1,
      usage: 1,
    },
    expected: {
      reasoningText: reasoningPieces.join(''),
      answerText: answerPieces.join(''),
      toolCall: { id: TOOL_CALL_ID, name: TOOL_NAME, arguments: argumentsText },
      finishReason: 'tool_calls',
      inputTokens,
      outputTokens,
    },
  };
}

function envelope() {
  return {
    id: RESPONSE_ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    system_fingerprint: FINGERPRINT,
  };
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    ...envelope(),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** `count` pieces read from `source` repeated, sized by `PIECE_SIZES`; code points, never half a pair. */
function pieces(source: string, count: number): string[] {
  const characters = Array.from(source);
  const result: string[] = [];
  let position = 0;
  for (let index = 0; index < count; index += 1) {
    const size = PIECE_SIZES[index % PIECE_SIZES.length] ?? 1;
    let piece = '';
    for (let taken = 0; taken < size; taken += 1) {
      piece += characters[position % characters.length];
      position += 1;
    }
    result.push(piece);
  }
  return result;
}

/**
 * The call's arguments: an order id and a reason long enough that `fragmentCount` fragments of
 * 2 to 3 characters spell it, as DeepSeek fragments arguments.
 */
function toolArguments(fragmentCount: number): string {
  const targetLength = Math.max(fragmentCount * 2.5, 40);
  const reason = Array.from('用户收到前改变主意，不想要了，订单尚未发货，按用户要求取消。');
  let text = '';
  for (let index = 0; JSON.stringify({ orderId: '88235', reason: text }).length < targetLength; index += 1) {
    text += reason[index % reason.length];
  }
  return JSON.stringify({ orderId: '88235', reason: text });
}

/** `text` cut into `count` consecutive non-empty pieces of near-equal length (`text` has at least `count` characters). */
function splitEvenly(text: string, count: number): string[] {
  const characters = Array.from(text);
  return Array.from({ length: count }, (_, index) =>
    characters
      .slice(
        Math.floor((index * characters.length) / count),
        Math.floor(((index + 1) * characters.length) / count),
      )
      .join(''),
  );
}
