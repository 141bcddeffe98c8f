import { anthropicEvent } from './anthropic-recordings.ts';

/**
 * Anthropic Messages streams assembled from documented events where no whole recording of the case
 * exists (signed thinking before a call, parallel calls, redacted thinking, Qwen's empty signature).
 * Each says which documentation it follows; the event shapes are those of the recordings beside it.
 */
/**
 * A signature as the extended thinking docs show one, `/` included, so any re-encoding shows:
 * https://platform.claude.com/docs/en/build-with-claude/extended-thinking ("How extended thinking works").
 */
export const THINKING_SIGNATURE =
  'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....';

export const THINKING_TEXT = [
  'The user wants the weather in Paris.',
  ' I should call get_weather with location "Paris".',
];

/**
 * Thinking with its `signature_delta` just before `content_block_stop`, then a `tool_use`. Assembled
 * from the documented events: the thinking block as in "Streaming thinking"
 * (https://platform.claude.com/docs/en/build-with-claude/extended-thinking#streaming-thinking,
 * `content_block_start` with `"thinking": "", "signature": ""`), the tool block as in the recorded
 * `tool_use_response.txt` (`TOOL_USE` in anthropic-recordings.ts), the usage as in
 * `missing_usage_response.txt` there.
 */
export const THINKING_TOOL_USE = [
  anthropicEvent({
    type: 'message_start',
    message: {
      id: 'msg_01ThinkingToolUse',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-sonnet-4-5',
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 472,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 2000,
        output_tokens: 2,
      },
    },
  }),
  anthropicEvent({
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'thinking', thinking: '', signature: '' },
  }),
  ...THINKING_TEXT.map((thinking) =>
    anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } }),
  ),
  anthropicEvent({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'signature_delta', signature: THINKING_SIGNATURE },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 0 }),
  anthropicEvent({
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', input: {} },
  }),
  ...['', '{"locati', 'on": "P', 'ar', 'is"}'].map((partial_json) =>
    anthropicEvent({
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json },
    }),
  ),
  anthropicEvent({ type: 'content_block_stop', index: 1 }),
  anthropicEvent({
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 312, output_tokens_details: { thinking_tokens: 190 } },
  }),
  anthropicEvent({ type: 'message_stop' }),
].join('');

/**
 * Two `tool_use` blocks in one response (https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use:
 * "multiple tool_use blocks"), streamed in the recorded shape of `tool_use_response.txt`.
 */
export const PARALLEL_TOOL_USE = [
  anthropicEvent({
    type: 'message_start',
    message: {
      id: 'msg_01ParallelTools',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-sonnet-4-5',
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 512, output_tokens: 1 },
    },
  }),
  anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: "I'll check the weather and the time in San Francisco." },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 0 }),
  anthropicEvent({
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_01WeatherSF', name: 'get_weather', input: {} },
  }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: '{"location": "San Francisco, CA"}' },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 1 }),
  anthropicEvent({
    type: 'content_block_start',
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_01TimeSF', name: 'get_time', input: {} },
  }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '{"timezone": ' },
  }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '"America/Los_Angeles"}' },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 2 }),
  anthropicEvent({
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 98 },
  }),
  anthropicEvent({ type: 'message_stop' }),
].join('');

/**
 * The encrypted `data` the docs show for a `redacted_thinking` block:
 * https://platform.claude.com/docs/en/build-with-claude/extended-thinking ("Redacted thinking blocks").
 */
export const REDACTED_DATA =
  'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF8/dW5hR7xJ0aP1oLs9yTcMnKVf2wRpEGjH9XZaBt4UvDcPrQ...';

/**
 * A `redacted_thinking` block (it arrives whole in `content_block_start`), a signed `thinking` block
 * and the answer, as the docs' example response orders them; streamed in the documented event shape.
 */
export const REDACTED_THINKING = [
  anthropicEvent({
    type: 'message_start',
    message: {
      id: 'msg_01Redacted',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-3-7-sonnet-20250219',
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 90, output_tokens: 1 },
    },
  }),
  anthropicEvent({
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'redacted_thinking', data: REDACTED_DATA },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 0 }),
  anthropicEvent({
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'thinking', thinking: '', signature: '' },
  }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'thinking_delta', thinking: 'Let me analyze this step by step...' },
  }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'signature_delta', signature: THINKING_SIGNATURE },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 1 }),
  anthropicEvent({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'text_delta', text: 'Based on my analysis...' },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 2 }),
  anthropicEvent({
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 240 },
  }),
  anthropicEvent({ type: 'message_stop' }),
].join('');

/**
 * Qwen on DashScope: thinking comes back with an empty signature
 * (https://docs.qwencloud.com/api-reference/chat/anthropic, the example response's
 * `"signature": ""`), streamed in the documented event shape.
 */
export const UNSIGNED_THINKING_TOOL_USE = [
  anthropicEvent({
    type: 'message_start',
    message: {
      id: 'msg_e2898f19-fc0e-4cb3-bd9b-5b7dc4ea3bc9',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'qwen-plus',
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 22,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  }),
  anthropicEvent({
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'thinking', thinking: '', signature: '' },
  }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'thinking_delta', thinking: '用户想查订单，先调用 query_order。' },
  }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'signature_delta', signature: '' },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 0 }),
  anthropicEvent({
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'call_qwen_1', name: 'query_order', input: {} },
  }),
  anthropicEvent({
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: '{"orderId":"NS-1042"}' },
  }),
  anthropicEvent({ type: 'content_block_stop', index: 1 }),
  anthropicEvent({
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 40 },
  }),
  anthropicEvent({ type: 'message_stop' }),
].join('');
