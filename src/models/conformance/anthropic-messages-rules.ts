import type { IncomingHttpHeaders } from 'node:http';
import { isRecord } from '../../shared/index.ts';
import type { ProviderRefusal } from './provider-refusal.ts';

/**
 * What Anthropic's Messages API refuses (https://docs.claude.com/en/api/messages,
 * https://docs.claude.com/en/docs/build-with-claude/extended-thinking, …/tool-use/handle-tool-calls,
 * https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows for adaptive
 * thinking), with the messages Anthropic answers. PROVIDER-RULES.md lists each rule with its source.
 */

/** The thinking this server streamed: what a later request must send back unchanged. */
export interface IssuedThinking {
  /** signature → the thinking text streamed with it. */
  signed: Map<string, string>;
  /** `data` of the redacted thinking blocks streamed. */
  redacted: Set<string>;
  /**
   * The `tool_use` ids of responses that thought before calling: in adaptive mode Claude may skip
   * thinking, and only a turn that did think has a thinking block to give back.
   */
  toolUsesAfterThinking: Set<string>;
}

/** An empty record of issued thinking, for a server that has streamed nothing yet. */
export function noThinkingIssued(): IssuedThinking {
  return { signed: new Map(), redacted: new Set(), toolUsesAfterThinking: new Set() };
}

type Json = Record<string, unknown>;
function refuse(
  rule: string,
  message: string,
  type = 'invalid_request_error',
  status = 400,
): ProviderRefusal {
  return {
    status,
    rule,
    body: { type: 'error', error: { type, message }, request_id: 'req_011CV7replayConformance00' },
  };
}

function blocksOf(message: Json): Json[] {
  return Array.isArray(message.content) ? message.content.filter(isRecord) : [];
}

/** The refusal Anthropic would answer to this request, or `undefined` when it would stream. */
export function checkMessagesRequest(
  headers: IncomingHttpHeaders,
  body: unknown,
  issued: IssuedThinking,
): ProviderRefusal | undefined {
  if (!headers['x-api-key']) {
    return refuse('anthropic.headers', 'x-api-key header is required', 'authentication_error', 401);
  }
  if (!headers['anthropic-version'])
    return refuse('anthropic.headers', 'anthropic-version: header is required');
  if (!isRecord(body) || !Array.isArray(body.messages) || !body.messages.every(isRecord)) {
    return refuse('anthropic.shape', 'messages: Field required');
  }
  if (typeof body.max_tokens !== 'number')
    return refuse('anthropic.max_tokens', 'max_tokens: Field required');
  if (body.stream !== true) {
    return refuse(
      'replay.stream_only',
      'this replay server serves recorded streams only: send "stream": true',
    );
  }
  const messages = body.messages as Json[];
  const thinking = isRecord(body.thinking) ? body.thinking.type : undefined;
  const pairing = toolPairProblem(messages);
  return (
    checkThinkingSettings(body) ??
    (pairing === undefined ? undefined : refuse(pairing.rule, pairing.message)) ??
    checkThinkingBlocks(messages, issued) ??
    (thinking === 'enabled' || thinking === 'adaptive'
      ? checkFinalTurnThinks(messages, thinking === 'enabled' ? undefined : issued.toolUsesAfterThinking)
      : undefined)
  );
}

/**
 * `budget_tokens` ≥ 1024 and below `max_tokens`; no temperature but 1 while thinking, adaptive
 * thinking included (the refusal's own wording names both modes).
 */
function checkThinkingSettings(body: Json): ProviderRefusal | undefined {
  if (!isRecord(body.thinking)) return undefined;
  if (body.thinking.type === 'adaptive') return checkThinkingTemperature(body);
  if (body.thinking.type !== 'enabled') return undefined;
  const budget = body.thinking.budget_tokens;
  if (typeof budget !== 'number' || budget < 1024) {
    return refuse(
      'anthropic.thinking_budget',
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    );
  }
  if (typeof body.max_tokens === 'number' && body.max_tokens <= budget) {
    return refuse('anthropic.thinking_budget', '`max_tokens` must be greater than `thinking.budget_tokens`.');
  }
  return checkThinkingTemperature(body);
}

function checkThinkingTemperature(body: Json): ProviderRefusal | undefined {
  if (body.temperature !== undefined && body.temperature !== 1) {
    return refuse(
      'anthropic.thinking_temperature',
      '`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.',
    );
  }
  return undefined;
}

/**
 * Each `tool_use` is answered by a `tool_result` in the very next (user) message, and only those:
 * the rule and Anthropic's wording, for any Messages endpoint to wrap in its own error body.
 */
export function toolPairProblem(messages: readonly Json[]): { rule: string; message: string } | undefined {
  for (const [index, message] of messages.entries()) {
    const previous = messages[index - 1];
    const calls = new Set(
      previous?.role === 'assistant'
        ? blocksOf(previous)
            .filter((block) => block.type === 'tool_use')
            .map((block) => String(block.id))
        : [],
    );
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (block.type === 'tool_result' && !calls.has(String(block.tool_use_id))) {
        return {
          rule: 'anthropic.tool_result_answers_tool_use',
          message:
            `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ` +
            `${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        };
      }
    }
    if (message.role !== 'assistant') continue;
    const uses = blocksOf(message).filter((block) => block.type === 'tool_use');
    if (uses.length === 0) continue;
    const next = messages[index + 1];
    const answered = new Set(
      next === undefined
        ? []
        : blocksOf(next)
            .filter((block) => block.type === 'tool_result')
            .map((block) => String(block.tool_use_id)),
    );
    const missing = uses.map((block) => String(block.id)).filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return {
        rule: 'anthropic.every_tool_use_answered',
        message:
          `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
          `${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      };
    }
  }
  return undefined;
}

/** Thinking blocks sent back are the ones streamed, byte for byte: text and signature, or redacted data. */
function checkThinkingBlocks(messages: Json[], issued: IssuedThinking): ProviderRefusal | undefined {
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      const at = `messages.${index}.content.${blockIndex}`;
      if (block.type === 'thinking') {
        if (typeof block.signature !== 'string') {
          return refuse('anthropic.thinking_unchanged', `${at}.thinking.signature: Field required`);
        }
        if (issued.signed.get(block.signature) !== block.thinking) {
          return refuse('anthropic.thinking_unchanged', `${at}: Invalid \`signature\` in \`thinking\` block`);
        }
      }
      if (block.type === 'redacted_thinking' && !issued.redacted.has(String(block.data))) {
        return refuse(
          'anthropic.thinking_unchanged',
          `${at}: Invalid \`data\` in \`redacted_thinking\` block`,
        );
      }
    }
  }
  return undefined;
}

/**
 * With thinking on, the last assistant message of a tool loop (the one whose tool_use the request
 * answers) starts with its thinking block. Adaptive thinking has the same round-trip rules, but
 * Claude may skip thinking there: `thoughtBefore` (the tool_use ids of responses that did think)
 * limits the rule to a turn that had a thinking block to give back.
 */
function checkFinalTurnThinks(
  messages: Json[],
  thoughtBefore?: ReadonlySet<string>,
): ProviderRefusal | undefined {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]?.role !== 'assistant') index--;
  const last = messages[index];
  if (last === undefined) return undefined;
  const blocks = blocksOf(last);
  const uses = blocks.filter((block) => block.type === 'tool_use');
  if (uses.length === 0) return undefined;
  if (thoughtBefore !== undefined && !uses.some((block) => thoughtBefore.has(String(block.id)))) {
    return undefined;
  }
  const first = blocks[0];
  if (first?.type === 'thinking' || first?.type === 'redacted_thinking') return undefined;
  return refuse(
    'anthropic.final_turn_starts_with_thinking',
    `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. ` +
      'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the ' +
      'lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from ' +
      'previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at ' +
      'https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking',
  );
}

/** The thinking blocks of one streamed Messages response, to remember as issued. */
export function thinkingIssuedBy(sseBody: string, into: IssuedThinking): void {
  const text = new Map<number, string>();
  let thought = false;
  for (const frame of sseBody.split('\n\n')) {
    const line = frame.split('\n').find((candidate) => candidate.startsWith('data:'));
    if (line === undefined) continue;
    let event: unknown;
    try {
      event = JSON.parse(line.slice('data:'.length));
    } catch {
      continue;
    }
    if (!isRecord(event)) continue;
    const index = typeof event.index === 'number' ? event.index : -1;
    const block = isRecord(event.content_block) ? event.content_block : undefined;
    if (event.type === 'content_block_start' && block?.type === 'thinking') {
      text.set(index, String(block.thinking ?? ''));
      thought = true;
    }
    if (event.type === 'content_block_start' && block?.type === 'redacted_thinking') {
      into.redacted.add(String(block.data));
      thought = true;
    }
    if (event.type === 'content_block_start' && block?.type === 'tool_use' && thought) {
      into.toolUsesAfterThinking.add(String(block.id));
    }
    const delta = isRecord(event.delta) ? event.delta : undefined;
    if (delta?.type === 'thinking_delta') text.set(index, (text.get(index) ?? '') + String(delta.thinking));
    if (delta?.type === 'signature_delta') into.signed.set(String(delta.signature), text.get(index) ?? '');
  }
}
