import type { ChatStreamPart, TokenUsage } from './chat-model.ts';

/**
 * Builders for `ScriptedChatModel` turns, so a test says what the model does ("thinks, then calls
 * `query_order`") instead of spelling out every start, delta and end part.
 */

export interface ScriptedToolCall {
  name: string;
  /** JSON text as the model would write it, or an object that is serialised. Default `{}`. */
  arguments?: string | Readonly<Record<string, unknown>>;
  /** Default `call_1`, `call_2` … unique within the process, so turns never reuse an id. */
  id?: string;
}

export interface TurnOptions {
  /** Reasoning streamed before everything else; an array gives the exact deltas. */
  reasoning?: string | readonly string[];
  /** Put on the `finish` part. */
  usage?: TokenUsage;
  /** Split strings (text, reasoning, arguments) into deltas of this many characters. Default: whole. */
  chunkSize?: number;
}

let toolCallCounter = 0;

/** A fresh tool call id: `call_1`, `call_2` … */
export function nextToolCallId(): string {
  toolCallCounter += 1;
  return `call_${toolCallCounter}`;
}

/** `reasoning-delta` parts: one per array item, or the string cut every `chunkSize` characters. */
export function reasoningDeltas(text: string | readonly string[], chunkSize?: number): ChatStreamPart[] {
  return pieces(text, chunkSize).map((piece) => ({ type: 'reasoning-delta', text: piece }));
}

/** `text-delta` parts: one per array item, or the string cut every `chunkSize` characters. */
export function textDeltas(text: string | readonly string[], chunkSize?: number): ChatStreamPart[] {
  return pieces(text, chunkSize).map((piece) => ({ type: 'text-delta', text: piece }));
}

/** One complete tool call: `tool-call-start`, its argument deltas, and `tool-call-end`. */
export function toolCallParts(call: ScriptedToolCall, index = 0, chunkSize?: number): ChatStreamPart[] {
  const id = call.id ?? nextToolCallId();
  const argumentsText =
    typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return [
    { type: 'tool-call-start', index, id, name: call.name },
    ...pieces(argumentsText, chunkSize).map(
      (piece): ChatStreamPart => ({ type: 'tool-call-delta', index, id, argumentsDelta: piece }),
    ),
    { type: 'tool-call-end', index, id, name: call.name, arguments: argumentsText },
  ];
}

/** A turn that (optionally thinks and) answers in text, finishing with `stop`. */
export function textTurn(text: string | readonly string[], options: TurnOptions = {}): ChatStreamPart[] {
  return [
    ...reasoningDeltas(options.reasoning ?? [], options.chunkSize),
    ...textDeltas(text, options.chunkSize),
    finishPart('stop', options.usage),
  ];
}

/**
 * A turn that calls tools, one after another with indexes 0, 1 … (optionally after reasoning and some
 * text), finishing with `tool_calls`.
 */
export function toolCallTurn(
  calls: readonly ScriptedToolCall[],
  options: TurnOptions & { text?: string | readonly string[] } = {},
): ChatStreamPart[] {
  return [
    ...reasoningDeltas(options.reasoning ?? [], options.chunkSize),
    ...textDeltas(options.text ?? [], options.chunkSize),
    ...calls.flatMap((call, index) => toolCallParts(call, index, options.chunkSize)),
    finishPart('tool_calls', options.usage),
  ];
}

function finishPart(reason: 'stop' | 'tool_calls', usage: TokenUsage | undefined): ChatStreamPart {
  return usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage };
}

function pieces(text: string | readonly string[], chunkSize: number | undefined): string[] {
  if (typeof text !== 'string') return text.filter((piece) => piece !== '');
  if (text === '') return [];
  if (chunkSize === undefined) return [text];
  if (!Number.isInteger(chunkSize) || chunkSize <= 0) {
    throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
  }
  // By code point, so a chunk never ends inside a surrogate pair (an emoji).
  const characters = Array.from(text);
  const result: string[] = [];
  for (let start = 0; start < characters.length; start += chunkSize) {
    result.push(characters.slice(start, start + chunkSize).join(''));
  }
  return result;
}
