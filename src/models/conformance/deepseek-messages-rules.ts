import type { IncomingHttpHeaders } from 'node:http';
import { isRecord } from '../../shared/index.ts';
import { toolPairProblem } from './anthropic-messages-rules.ts';
import { openAiError, type ProviderRefusal } from './provider-refusal.ts';

/**
 * What DeepSeek's Anthropic-format endpoint (`https://api.deepseek.com/anthropic`, `POST
 * /v1/messages`) refuses, written from its documentation
 * (https://api-docs.deepseek.com/guides/anthropic_api, …/guides/thinking_mode,
 * …/api/create-message) and the answers users quoted, never from this project's adapter.
 * DeepSeek answers in OpenAI's error shape on this endpoint too. PROVIDER-RULES.md lists each rule
 * with its source.
 */

type Json = Record<string, unknown>;
const blocksOf = (message: Json): Json[] =>
  Array.isArray(message.content) ? message.content.filter(isRecord) : [];

/** The refusal DeepSeek would answer to this request, or `undefined` when it would stream. */
export function checkDeepSeekMessagesRequest(
  headers: IncomingHttpHeaders,
  body: unknown,
): ProviderRefusal | undefined {
  // "Authenticate with either `x-api-key` or `Authorization: Bearer`"; `anthropic-version` is ignored.
  if (!headers['x-api-key'] && !headers.authorization) {
    return {
      status: 401,
      rule: 'deepseek.messages_auth',
      body: openAiError('Authentication Fails (auth header format should be Bearer sk-...)', {
        type: 'authentication_error',
        code: 'invalid_request_error',
      }),
    };
  }
  if (!isRecord(body) || !Array.isArray(body.messages) || !body.messages.every(isRecord)) {
    return { status: 400, rule: 'replay.shape', body: openAiError('messages: Field required') };
  }
  if (body.stream !== true) {
    return {
      status: 400,
      rule: 'replay.stream_only',
      body: openAiError('this replay server serves recorded streams only: send "stream": true'),
    };
  }
  const messages = body.messages as Json[];
  const pairing = toolPairProblem(messages);
  if (pairing !== undefined) {
    // DeepSeek documents no wording for a broken pairing; Anthropic's, in DeepSeek's error body.
    return { status: 400, rule: pairing.rule, body: openAiError(pairing.message) };
  }
  return deepSeekThinks(body) ? checkThinkingBack(messages) : undefined;
}

/**
 * "Thinking mode is enabled by default"; `thinking: {type: "disabled"}` turns it off. The legacy
 * `deepseek-chat` alias is the non-thinking mode unless thinking is asked for.
 */
function deepSeekThinks(body: Json): boolean {
  const type = isRecord(body.thinking) ? body.thinking.type : undefined;
  if (type === 'disabled') return false;
  return body.model !== 'deepseek-chat' || type === 'enabled';
}

/**
 * A user message that says something: one that carries only `tool_result` blocks is the tool
 * messages of the OpenAI format, not a new user turn.
 */
function isUserTurn(message: Json): boolean {
  if (message.role !== 'user') return false;
  if (!Array.isArray(message.content)) return true;
  return blocksOf(message).some((block) => block.type !== 'tool_result');
}

/**
 * Between two user messages, once the model made a tool call, every assistant message of that
 * stretch carries its thinking block back, in this request and every later one (the thinking
 * mode guide's rule for `reasoning_content`, which this endpoint reads from `content[].thinking`).
 * What the block holds is not checked: an empty, unsigned block passes (observed).
 */
function checkThinkingBack(messages: readonly Json[]): ProviderRefusal | undefined {
  let stretch: Json[] = [];
  const stretches: Json[][] = [stretch];
  for (const message of messages) {
    if (isUserTurn(message)) {
      stretch = [];
      stretches.push(stretch);
    } else if (message.role === 'assistant') stretch.push(message);
  }
  for (const assistants of stretches) {
    if (!assistants.some((message) => blocksOf(message).some((block) => block.type === 'tool_use'))) continue;
    if (assistants.every((message) => blocksOf(message).some((block) => block.type === 'thinking'))) continue;
    return {
      status: 400,
      rule: 'deepseek.thinking_back',
      body: openAiError('The `content[].thinking` in the thinking mode must be passed back to the API.', {
        code: 'invalid_request_error',
      }),
    };
  }
  return undefined;
}
