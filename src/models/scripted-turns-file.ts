import { z } from 'zod';
import { StepFinishReasonSchema, TokenUsageSchema } from '../protocol/index.ts';
import type { ChatStreamPart } from './chat-model.ts';
import { ScriptedChatModel, type ScriptedTurn } from './scripted-chat-model.ts';

/**
 * Node's file reading, fetched when a script is read rather than imported: the module that picks a
 * model from the environment sits on the Web-standard core's path, where `node:` imports may not.
 */
function readTextFile(path: string): { text: () => string } {
  const fs = process.getBuiltinModule('node:fs');
  const file = process.getBuiltinModule('node:path').resolve(path);
  return { text: () => fs.readFileSync(file, 'utf8') };
}

import { reasoningDeltas, textDeltas, toolCallParts } from './scripted-turns.ts';

/**
 * Scripted turns from a JSONL file, for `RUNSTREAM_MODEL=scripted:<file.jsonl>`: a whole server run
 * against a fixed script (demos, end-to-end tests, reproducing a report) without a key. One turn per
 * line, replayed in order, one per model call; blank lines are skipped. A line is an array of parts
 * or `{"parts": [...], "failAt"?: n, "delayMs"?: n}` (see `ScriptedTurn`). A part is one of the
 * `ChatStreamPart`s the scripted model streams (`{"type": "text-delta", "text": "…"}`,
 * `tool-call-start` … `finish`) or a shorthand the builders of `scripted-turns.ts` expand:
 *
 * ```jsonl
 * [{"type":"reasoning","text":"先查知识库。"},{"type":"tool-call","name":"search_knowledge","arguments":{"query":"保修"}}]
 * {"parts":[{"type":"text","text":"整机保修一年。"}],"delayMs":20}
 * ```
 *
 * `tool-call` takes `name`, `arguments` (an object, or JSON text) and `id` (default `call_1`, `call_2`
 * …); calls of one line get indexes 0, 1 … A line without a `finish` part gets one, as in
 * `ScriptedChatModel`. Anything else is a `ScriptedTurnsFileError` naming the file and the line.
 */

const PartSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('reasoning'), text: z.string() }),
  z.strictObject({
    type: z.literal('tool-call'),
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    id: z.string().min(1).optional(),
  }),
  z.strictObject({ type: z.literal('text-delta'), text: z.string() }),
  z.strictObject({ type: z.literal('reasoning-delta'), text: z.string() }),
  z.strictObject({ type: z.literal('reasoning-signature'), signature: z.string() }),
  z.strictObject({ type: z.literal('reasoning-redacted'), data: z.string() }),
  z.strictObject({
    type: z.literal('tool-call-start'),
    index: z.number().int().nonnegative(),
    id: z.string().min(1),
    name: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal('tool-call-delta'),
    index: z.number().int().nonnegative(),
    id: z.string().min(1),
    argumentsDelta: z.string(),
  }),
  z.strictObject({
    type: z.literal('tool-call-end'),
    index: z.number().int().nonnegative(),
    id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
  }),
  z.strictObject({
    type: z.literal('finish'),
    reason: StepFinishReasonSchema,
    usage: TokenUsageSchema.optional(),
  }),
]);
type FilePart = z.infer<typeof PartSchema>;

const TurnObjectSchema = z.strictObject({
  parts: z.array(z.unknown()),
  failAt: z.number().int().nonnegative().optional(),
  delayMs: z.number().nonnegative().optional(),
});

const PART_TYPES = PartSchema.options.map((option) => option.shape.type.value);

/** A script line that cannot be read; `message` is `path:line: what`. */
export class ScriptedTurnsFileError extends Error {
  override readonly name = 'ScriptedTurnsFileError';
  readonly file: string;
  readonly line: number | undefined;

  constructor(file: string, line: number | undefined, problem: string) {
    super(line === undefined ? `${file}: ${problem}` : `${file}:${line}: ${problem}`);
    this.file = file;
    this.line = line;
  }
}

/** The turns of a JSONL script (rules above); relative paths resolve against the working directory. */
export function loadScriptedTurns(path: string): ScriptedTurn[] {
  const { text } = readTextFile(path);
  let source: string;
  try {
    source = text();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error);
    throw new ScriptedTurnsFileError(path, undefined, `cannot read the scripted turns (${reason})`);
  }
  const turns: ScriptedTurn[] = [];
  source.split(/\r?\n/).forEach((text, index) => {
    if (text.trim() === '') return;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ScriptedTurnsFileError(path, line, `not JSON (${(error as Error).message})`);
    }
    turns.push(readTurn(value, (problem) => new ScriptedTurnsFileError(path, line, problem)));
  });
  if (turns.length === 0)
    throw new ScriptedTurnsFileError(path, undefined, 'has no turns (one JSON line per turn)');
  return turns;
}

/**
 * A `ScriptedChatModel` (named `scripted:<file name>`) replaying the file's turns; a line whose turn
 * the model rejects (parts after `finish`, `failAt` beyond its parts) fails here, naming its line.
 */
export function createScriptedModelFromFile(
  path: string,
  options: { delayMs?: number } = {},
): ScriptedChatModel {
  const turns = loadScriptedTurns(path);
  const name = `scripted:${path.split(/[\\/]/).at(-1) ?? path}`;
  try {
    return new ScriptedChatModel(turns, {
      name,
      ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
    });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // ScriptedChatModel says "scripted turn N": the Nth non-blank line.
    const turn = Number(/turn (\d+)/.exec(error.message)?.[1]);
    throw new ScriptedTurnsFileError(path, lineOfTurn(path, turn), error.message);
  }
}

function expand(parts: readonly FilePart[]): ChatStreamPart[] {
  let callIndex = 0;
  return parts.flatMap((part): ChatStreamPart[] => {
    switch (part.type) {
      case 'text':
        return textDeltas(part.text);
      case 'reasoning':
        return reasoningDeltas(part.text);
      case 'tool-call': {
        const call = {
          name: part.name,
          ...(part.arguments === undefined ? {} : { arguments: part.arguments }),
          ...(part.id === undefined ? {} : { id: part.id }),
        };
        const expanded = toolCallParts(call, callIndex);
        callIndex += 1;
        return expanded;
      }
      case 'finish':
        return [
          part.usage === undefined
            ? { type: 'finish', reason: part.reason }
            : { type: 'finish', reason: part.reason, usage: part.usage },
        ];
      default:
        return [part];
    }
  });
}

/** One line's turn; `fail` makes the error for a problem. */
function readTurn(value: unknown, fail: (problem: string) => Error): ScriptedTurn {
  if (Array.isArray(value)) return { parts: expand(value.map((part, index) => readPart(part, index, fail))) };
  const turn = TurnObjectSchema.safeParse(value);
  if (!turn.success) {
    throw fail(
      `${issueOf(turn.error)} (a turn is an array of parts or {"parts": [...], "failAt"?, "delayMs"?})`,
    );
  }
  return {
    parts: expand(turn.data.parts.map((part, index) => readPart(part, index, fail))),
    ...(turn.data.failAt === undefined ? {} : { failAt: turn.data.failAt }),
    ...(turn.data.delayMs === undefined ? {} : { delayMs: turn.data.delayMs }),
  };
}

function readPart(value: unknown, index: number, fail: (problem: string) => Error): FilePart {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !(PART_TYPES as readonly string[]).includes(type)) {
    throw fail(
      `part ${index + 1}: type ${JSON.stringify(type ?? null)} is not one of ${PART_TYPES.join(', ')}`,
    );
  }
  const part = PartSchema.safeParse(value);
  if (!part.success) throw fail(`part ${index + 1} (${type}): ${issueOf(part.error)}`);
  return part.data;
}

function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  return issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`;
}

function lineOfTurn(path: string, turn: number): number | undefined {
  if (!Number.isInteger(turn) || turn < 1) return undefined;
  const lines = readTextFile(path).text().split(/\r?\n/);
  let seen = 0;
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index]?.trim() === '') continue;
    seen += 1;
    if (seen === turn) return index + 1;
  }
  return undefined;
}
