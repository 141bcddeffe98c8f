import type { ChatStreamPart } from 'runstream';
import type { TurnPlan } from './turn-plan.ts';

/** Delta sizes, cycled: small and uneven, like a real model's tokens (2 to 6 characters). */
const DELTA_SIZES = [2, 4, 3, 5, 6, 3, 2, 5, 4, 6] as const;

/** Cut text into deltas of 2 to 6 characters (code points, so no surrogate pair is split). */
export function cutDeltas(text: string): string[] {
  const characters = Array.from(text);
  const pieces: string[] = [];
  let position = 0;
  let turn = 0;
  while (position < characters.length) {
    const size = DELTA_SIZES[turn % DELTA_SIZES.length] ?? 4;
    // Never leave a lone last character: every delta of a text of 2 or more is 2 to 6 long.
    const rest = characters.length - (position + size);
    const end = rest === 1 ? position + (size > 2 ? size - 1 : size + 1) : position + size;
    pieces.push(characters.slice(position, end).join(''));
    position = end;
    turn += 1;
  }
  return pieces;
}

/** Argument JSON in a few fragments (three, or two for short text), as providers stream it. */
export function cutArguments(json: string): string[] {
  const characters = Array.from(json);
  const count = characters.length < 8 ? 2 : 3;
  const size = Math.ceil(characters.length / count);
  const fragments: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    fragments.push(characters.slice(start, start + size).join(''));
  }
  return fragments;
}

/** The plan as stream parts: reasoning, then answer text, then each tool call, then `finish`. */
export function planToParts(plan: TurnPlan, newToolCallId: () => string): ChatStreamPart[] {
  const parts: ChatStreamPart[] = [];
  if (plan.reasoning) {
    for (const text of cutDeltas(plan.reasoning)) parts.push({ type: 'reasoning-delta', text });
  }
  if (plan.text) for (const text of cutDeltas(plan.text)) parts.push({ type: 'text-delta', text });
  const calls = plan.calls ?? [];
  calls.forEach((call, index) => {
    const id = newToolCallId();
    const json = JSON.stringify(call.args);
    parts.push({ type: 'tool-call-start', index, id, name: call.name });
    for (const argumentsDelta of cutArguments(json)) {
      parts.push({ type: 'tool-call-delta', index, id, argumentsDelta });
    }
    parts.push({ type: 'tool-call-end', index, id, name: call.name, arguments: json });
  });
  parts.push({ type: 'finish', reason: calls.length > 0 ? 'tool_calls' : 'stop' });
  return parts;
}
