import type { ChatStreamPart } from '../chat-model.ts';

/**
 * What is wrong with one streamed turn, measured against the `ChatStreamPart` contract; empty when
 * nothing is. Every `ChatModel` implementation's tests can assert `expect(turnProblems(parts)).toEqual([])`.
 */
export function turnProblems(parts: readonly ChatStreamPart[]): string[] {
  const problems: string[] = [];
  const calls = new Map<number, { id: string; name: string; arguments: string; ended: boolean }>();
  parts.forEach((part, position) => {
    const at = `part ${position} (${part.type})`;
    if (part.type === 'finish' && position !== parts.length - 1) problems.push(`${at}: finish is not last`);
    if (part.type === 'text-delta' || part.type === 'reasoning-delta') {
      if (part.text === '') problems.push(`${at}: empty delta`);
      return;
    }
    if (part.type === 'tool-call-start') {
      if (calls.has(part.index)) problems.push(`${at}: index ${part.index} started twice`);
      if (part.id === '' || part.name === '') problems.push(`${at}: empty id or name`);
      calls.set(part.index, { id: part.id, name: part.name, arguments: '', ended: false });
      return;
    }
    if (part.type === 'tool-call-delta' || part.type === 'tool-call-end') {
      const call = calls.get(part.index);
      if (call === undefined) {
        problems.push(`${at}: index ${part.index} was never started`);
        return;
      }
      if (call.ended) problems.push(`${at}: index ${part.index} already ended`);
      if (call.id !== part.id) problems.push(`${at}: id ${part.id} differs from its start's ${call.id}`);
      if (part.type === 'tool-call-delta') {
        call.arguments += part.argumentsDelta;
        return;
      }
      call.ended = true;
      if (part.name !== call.name) problems.push(`${at}: name ${part.name} differs from ${call.name}`);
      if (part.arguments !== call.arguments) {
        problems.push(`${at}: arguments ${JSON.stringify(part.arguments)} are not the deltas joined`);
      }
    }
  });
  const last = parts.at(-1);
  if (last?.type !== 'finish') problems.push('the turn does not end with finish');
  for (const [index, call] of calls) if (!call.ended) problems.push(`tool call ${index} never ended`);
  if (last?.type === 'finish' && last.reason === 'tool_calls' && calls.size === 0) {
    problems.push('finish says tool_calls but no tool call was made');
  }
  if (last?.type === 'finish' && last.reason === 'stop' && calls.size > 0) {
    problems.push('finish says stop after tool calls');
  }
  return problems;
}
