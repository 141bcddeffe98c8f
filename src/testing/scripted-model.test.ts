import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatStreamPart } from '../models/index.ts';
import { scriptedModel } from './index.ts';

async function play(model: ReturnType<typeof scriptedModel>, request: Partial<ChatRequest> = {}) {
  const parts: ChatStreamPart[] = [];
  for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }], ...request }))
    parts.push(part);
  return parts;
}

describe('scriptedModel', () => {
  it('plays a tool call, then an answer, in deltas of the chunk size', async () => {
    const model = scriptedModel(
      [{ toolCalls: [{ name: 'cancel_order', arguments: { orderId: 'A1' }, id: 'call_a' }] }, 'Done, A1.'],
      { chunkSize: 4 },
    );
    expect(await play(model)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'cancel_order' },
      { type: 'tool-call-delta', index: 0, id: 'call_a', argumentsDelta: '{"or' },
      { type: 'tool-call-delta', index: 0, id: 'call_a', argumentsDelta: 'derI' },
      { type: 'tool-call-delta', index: 0, id: 'call_a', argumentsDelta: 'd":"' },
      { type: 'tool-call-delta', index: 0, id: 'call_a', argumentsDelta: 'A1"}' },
      { type: 'tool-call-end', index: 0, id: 'call_a', name: 'cancel_order', arguments: '{"orderId":"A1"}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    expect(await play(model)).toEqual([
      { type: 'text-delta', text: 'Done' },
      { type: 'text-delta', text: ', A1' },
      { type: 'text-delta', text: '.' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(model.remainingTurns).toBe(0);
    await expect(play(model)).rejects.toThrow(/turn 3, but only 2 turns were scripted/);
  });

  it('builds a function turn from the request, and reasons before a text answer', async () => {
    const model = scriptedModel([
      (request) => ({ text: `you said ${request.messages.at(-1)?.content}`, reasoning: 'easy' }),
    ]);
    expect(await play(model, { messages: [{ role: 'user', content: 'ping' }] })).toEqual([
      { type: 'reasoning-delta', text: 'easy' },
      { type: 'text-delta', text: 'you said ping' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(model.requests).toHaveLength(1);
  });

  it('passes the long forms through: parts, and a turn that fails part-way', async () => {
    const model = scriptedModel([
      [{ type: 'text-delta', text: 'raw' }],
      { parts: [{ type: 'text-delta', text: 'cut' }], failAt: 1 },
    ]);
    expect(await play(model)).toEqual([
      { type: 'text-delta', text: 'raw' },
      { type: 'finish', reason: 'stop' },
    ]);
    await expect(play(model)).rejects.toThrow(/scripted failure of turn 2 after 1 parts/);
  });
});
