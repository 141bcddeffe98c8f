import {
  type ChatRequest,
  type ChatStreamPart,
  ScriptedChatModel,
  type ScriptedChatModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  textTurn,
  toolCallTurn,
} from '../models/index.ts';

/**
 * One turn of a scripted model, written the short way: a string is the answer; `{ toolCalls }` calls
 * tools (after optional `text`); `{ text }` answers (after optional `reasoning`); the long forms
 * (stream parts, a `ScriptedTurn` with its failure and pacing) pass through. A function builds the
 * turn from the request when its turn comes, to quote what a tool returned.
 */
export type ScriptedModelTurn = ScriptedModelReply | ((request: ChatRequest) => ScriptedModelReply);

/** A turn as it is played: any form but a function. */
export type ScriptedModelReply =
  | string
  | ScriptedTextTurn
  | ScriptedToolCallsTurn
  | readonly ChatStreamPart[]
  | ScriptedTurn;

export interface ScriptedTextTurn {
  text: string | readonly string[];
  reasoning?: string | readonly string[];
}

export interface ScriptedToolCallsTurn {
  toolCalls: readonly ScriptedToolCall[];
  text?: string | readonly string[];
  reasoning?: string | readonly string[];
}

export interface ScriptedModelOptions extends ScriptedChatModelOptions {
  /** Stream strings in deltas of this many characters, as a model does. Default: whole. */
  chunkSize?: number;
}

/**
 * A `ChatModel` for an agent's tests: it plays `turns`, one per model call, with no network and no
 * randomness, and records every request it got (`model.requests`). Asking for a turn beyond the
 * script fails with the request's last message, which usually shows the run went a round further
 * than the test expected.
 *
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ name: 'cancel_order', arguments: { orderId: 'A1001' } }] },
 *   'Order A1001 is cancelled.',
 * ]);
 * ```
 */
export function scriptedModel(
  turns: readonly ScriptedModelTurn[],
  options: ScriptedModelOptions = {},
): ScriptedChatModel {
  const { chunkSize, ...modelOptions } = options;
  const expand = (turn: ScriptedModelReply) => expandTurn(turn, chunkSize);
  return new ScriptedChatModel(
    turns.map((turn) =>
      typeof turn === 'function' ? (request: ChatRequest) => expand(turn(request)) : expand(turn),
    ),
    modelOptions,
  );
}

function expandTurn(
  turn: ScriptedModelReply,
  chunkSize: number | undefined,
): readonly ChatStreamPart[] | ScriptedTurn {
  const sizing = chunkSize === undefined ? {} : { chunkSize };
  if (typeof turn === 'string') return textTurn(turn, sizing);
  if (isPartList(turn) || 'parts' in turn) return turn;
  const reasoning = turn.reasoning === undefined ? {} : { reasoning: turn.reasoning };
  if ('toolCalls' in turn)
    return toolCallTurn(turn.toolCalls, {
      ...sizing,
      ...reasoning,
      ...(turn.text === undefined ? {} : { text: turn.text }),
    });
  return textTurn(turn.text, { ...sizing, ...reasoning });
}

// Array.isArray does not narrow a readonly array out of a union.
function isPartList(turn: ScriptedModelReply): turn is readonly ChatStreamPart[] {
  return Array.isArray(turn);
}
