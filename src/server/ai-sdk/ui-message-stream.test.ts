import { describe, expect, it } from 'vitest';
import type { RunEventDraft } from '../../protocol/index.ts';
import { RunLog } from '../../runtime/index.ts';
import { readBySdk } from './test-support/ai-sdk-client.ts';
import { partsOf, RUN } from './test-support/ui-message-fixture.ts';
import type { UiMessageChunk } from './ui-message-chunk-mapper.ts';
import { uiMessageFace } from './ui-message-stream.ts';

function chunksOf(text: string): UiMessageChunk[] {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map(
      (frame) => JSON.parse(frame.replace(/^id: run_\d+:\d+\n/, '').replace(/^data: /, '')) as UiMessageChunk,
    );
}

function frameText(frame: string | Uint8Array | null | undefined): string {
  if (frame === null || frame === undefined) return '';
  return typeof frame === 'string' ? frame : new TextDecoder().decode(frame);
}

/** The whole stream as a fresh reader gets it (the preamble, then every frame). */
function streamText(log: RunLog): string {
  const face = uiMessageFace(log);
  let text = frameText(face.preamble);
  for (let seq = face.preambleSeq + 1; seq <= log.lastSeq; seq += 1) text += frameText(face.frameAt(seq));
  return text;
}

/** Every stream the tests below make, by scenario: the last test has the AI SDK itself read them. */
const made = new Map<string, string>();

/** `streamText`, kept for the SDK to read. */
function madeFor(scenario: string, log: RunLog): string {
  const text = streamText(log);
  made.set(scenario, text);
  return text;
}

describe('the UI message stream face of a run log', () => {
  it('maps a run to the chunks the AI SDK reads, part ids from block ids', () => {
    const log = new RunLog('run_1', { now: () => 1 });
    for (const event of RUN) log.append(structuredClone(event));
    const chunks = chunksOf(madeFor('whole run', log));
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-delta',
      'tool-input-available',
      'tool-output-available',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-available',
      'tool-approval-request',
      'finish-step',
      'finish',
      'tool-approval-response',
      'start-step',
      'tool-output-available',
      'finish-step',
      'finish',
    ]);
    expect(chunks[0]).toEqual({
      type: 'start',
      messageId: 'msg_1',
      messageMetadata: { runId: 'run_1', conversationId: 'conv_1' },
    });
    expect(chunks).toContainEqual({
      type: 'tool-approval-request',
      approvalId: 'b5',
      toolCallId: 'call_c',
      approvalDescriptor: {
        title: '取消订单',
        description: '订单 88235',
        details: [{ label: '订单号', value: '88235' }],
      },
    });
    expect(chunks).toContainEqual({ type: 'tool-approval-response', approvalId: 'b5', approved: true });
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('gives every reader the same frames, also once the ring has let the events go', () => {
    const log = new RunLog('run_1', { capacity: 3, now: () => 1 });
    const face = uiMessageFace(log);
    const live: string[] = [];
    for (const event of RUN) {
      const logged = log.append(structuredClone(event));
      live.push(frameText(face.frameAt(logged.seq)));
    }
    const later = Array.from({ length: log.lastSeq }, (_, index) => frameText(face.frameAt(index + 1)));
    expect(later).toEqual(live);
    expect(live.join('')).toBe(streamText(fullLog()));
  });

  it('starts a reader from a snapshot when the log no longer holds the run’s start: the same message', () => {
    const log = new RunLog('run_1', { capacity: 3, now: () => 1 });
    for (const event of RUN) log.append(structuredClone(event));
    const face = uiMessageFace(log);
    expect(face.preamble).not.toBeNull();
    const fromSnapshot = chunksOf(madeFor('from a snapshot', log));
    const fromStart = chunksOf(streamText(fullLog()));
    expect(partsOf(fromSnapshot)).toEqual(partsOf(fromStart));
    expect(partsOf(fromStart).map((part) => [part.type, part.state])).toEqual([
      ['reasoning', 'done'],
      ['tool', 'output-available'],
      ['text', 'done'],
      ['tool', 'output-available'],
    ]);
    expect(fromSnapshot[0]).toEqual(fromStart[0]);
    expect(fromSnapshot.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    // Its last frame names the position it stands for, so a reader can resume after it.
    expect(frameText(face.preamble)).toMatch(
      new RegExp(`id: run_1:${face.preambleSeq}\\ndata: [^\\n]*\\n\\n$`),
    );
  });

  it('a snapshot taken while a tool’s arguments stream gives the reader the text streamed so far', () => {
    const log = new RunLog('run_1', { capacity: 3, now: () => 1 });
    for (const event of RUN.slice(0, 7)) log.append(structuredClone(event));
    const face = uiMessageFace(log);
    expect(face.preamble).not.toBeNull();
    for (const event of RUN.slice(7, 9)) log.append(structuredClone(event));
    const chunks = chunksOf(madeFor('snapshot mid-arguments', log));
    const streamed = chunks.flatMap((chunk) =>
      chunk.type === 'tool-input-delta' ? [chunk.inputTextDelta] : [],
    );
    expect(streamed.join('')).toBe('{"limit":10}');
    expect(chunks.at(-1)).toMatchObject({ type: 'tool-input-available', input: { limit: 10 } });
  });

  it('ends a cancelled run with abort and its reason, a failed one with error', () => {
    const cancelled = new RunLog('run_2', { now: () => 1 });
    for (const event of RUN.slice(0, 4)) cancelled.append(structuredClone(event));
    cancelled.append({
      type: 'block.ended',
      blockId: 'b1',
      endedAt: 5,
      durationMs: 1,
      status: 'cancelled',
    } as RunEventDraft);
    cancelled.append({ type: 'run.finished', status: 'cancelled', reason: 'user_stop' } as RunEventDraft);
    expect(chunksOf(madeFor('cancelled', cancelled)).slice(-3)).toEqual([
      { type: 'reasoning-end', id: 'b1' },
      { type: 'finish-step' },
      { type: 'abort', reason: 'user_stop' },
    ]);
    const failed = new RunLog('run_3', { now: () => 1 });
    failed.append(structuredClone(RUN[0] as RunEventDraft));
    failed.append({
      type: 'run.finished',
      status: 'failed',
      error: { code: 'model_unavailable', message: '模型暂时不可用' },
    } as RunEventDraft);
    expect(chunksOf(madeFor('failed', failed)).slice(-2)).toEqual([
      { type: 'error', errorText: '模型暂时不可用' },
      { type: 'finish', finishReason: 'error' },
    ]);
  });

  it('a card that expires (its paused run stopped) is a denial with why, then abort', () => {
    const log = new RunLog('run_5', { now: () => 1 });
    for (const event of RUN.slice(0, 19)) log.append(structuredClone(event));
    expect(log.paused).toBe(true);
    const paused = log.lastSeq;
    const stop = [
      { type: 'block.updated', blockId: 'b4', kind: 'tool', toolCallId: 'call_c', status: 'cancelled' },
      { type: 'block.ended', blockId: 'b4', endedAt: 30, durationMs: 1 },
      { type: 'block.updated', blockId: 'b5', kind: 'confirm', status: 'expired' },
      { type: 'block.ended', blockId: 'b5', endedAt: 30, durationMs: 1 },
      { type: 'run.finished', status: 'cancelled', reason: 'user_stop' },
    ] as RunEventDraft[];
    for (const event of stop) log.append(event);
    madeFor('card expired', log);
    const face = uiMessageFace(log);
    let after = '';
    for (let seq = paused + 1; seq <= log.lastSeq; seq += 1) after += frameText(face.frameAt(seq));
    expect(chunksOf(after)).toEqual([
      {
        type: 'tool-approval-response',
        approvalId: 'b5',
        approved: false,
        reason: 'the run was stopped before this tool call finished',
      },
      { type: 'tool-output-denied', toolCallId: 'call_c' },
      { type: 'abort', reason: 'user_stop' },
    ]);
  });

  it('ends an interrupted run with the error block’s text as a text part, then finish interrupted', () => {
    const interrupted = new RunLog('run_4', { now: () => 1 });
    for (const event of RUN.slice(0, 3)) interrupted.append(structuredClone(event));
    const events = [
      { type: 'block.ended', blockId: 'b1', endedAt: 5, durationMs: 1, status: 'interrupted' },
      { type: 'block.started', blockId: 'blk_interrupted_6', kind: 'error' },
      {
        type: 'block.delta',
        blockId: 'blk_interrupted_6',
        text: '本轮异常中断，请核对刚才提交的操作是否已经生效。',
      },
      { type: 'block.ended', blockId: 'blk_interrupted_6', endedAt: 6, durationMs: 0, status: 'done' },
      { type: 'run.finished', status: 'interrupted', reason: 'live_log_unreachable' },
    ] as RunEventDraft[];
    for (const event of events) interrupted.append(event);
    const expected = [
      { type: 'reasoning-end', id: 'b1' },
      { type: 'text-start', id: 'blk_interrupted_6' },
      {
        type: 'text-delta',
        id: 'blk_interrupted_6',
        delta: '本轮异常中断，请核对刚才提交的操作是否已经生效。',
      },
      { type: 'text-end', id: 'blk_interrupted_6' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'interrupted' },
    ];
    expect(chunksOf(madeFor('interrupted', interrupted)).slice(-6)).toEqual(expected);
    // A reader that starts from a snapshot of the ended run is told the same.
    const small = new RunLog('run_4', { capacity: 2, now: () => 1 });
    for (const event of [...RUN.slice(0, 3), ...events]) small.append(structuredClone(event));
    expect(uiMessageFace(small).preamble).not.toBeNull();
    expect(chunksOf(madeFor('interrupted, from a snapshot', small)).slice(-5)).toEqual(expected.slice(1));
  });

  it('puts the run’s usage in the message metadata: after each model call that reported it, and on finish', () => {
    const log = new RunLog('run_1', { now: () => 1 });
    for (const event of USAGE_RUN) log.append(structuredClone(event));
    const chunks = chunksOf(madeFor('usage', log));
    const afterFirst = {
      inputTokens: 1200,
      inputTokenDetails: { noCacheTokens: 176, cacheReadTokens: 1024 },
      outputTokens: 90,
      outputTokenDetails: { textTokens: 50, reasoningTokens: 40 },
      totalTokens: 1290,
    };
    expect(chunks.filter((chunk) => chunk.type === 'message-metadata' || chunk.type === 'finish')).toEqual([
      { type: 'message-metadata', messageMetadata: { usage: afterFirst } },
      // The second call reported nothing: no chunk, the total stays.
      { type: 'finish', finishReason: 'tool-calls', messageMetadata: { usage: afterFirst } },
      { type: 'message-metadata', messageMetadata: { usage: TOTAL } },
      { type: 'finish', finishReason: 'stop', messageMetadata: { usage: TOTAL } },
    ]);
    // A reader that starts from a snapshot of the ended run gets the total with the run's ids.
    const small = new RunLog('run_1', { capacity: 2, now: () => 1 });
    for (const event of USAGE_RUN) small.append(structuredClone(event));
    const fromSnapshot = chunksOf(madeFor('usage, from a snapshot', small));
    expect(fromSnapshot[0]).toEqual({
      type: 'start',
      messageId: 'msg_1',
      messageMetadata: { runId: 'run_1', conversationId: 'conv_1', usage: TOTAL },
    });
    expect(fromSnapshot.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      messageMetadata: { usage: TOTAL },
    });
  });

  it('the AI SDK’s own transport and reader take every stream above', async () => {
    expect([...made.keys()]).toEqual([
      'whole run',
      'from a snapshot',
      'snapshot mid-arguments',
      'cancelled',
      'failed',
      'card expired',
      'interrupted',
      'interrupted, from a snapshot',
      'usage',
      'usage, from a snapshot',
    ]);
    const results = await readBySdk([...made.values()]);
    const by = new Map([...made.keys()].map((scenario, index) => [scenario, results[index]]));
    for (const [scenario, result] of by) {
      if (scenario === 'failed') {
        // The SDK's reader ends a stream at its `error` chunk: the chat's error, with our text.
        expect(result?.error?.message).toBe('模型暂时不可用');
        continue;
      }
      expect([scenario, result?.error, result?.valid]).toEqual([scenario, undefined, true]);
      expect(result?.chunks).toEqual(chunksOf(made.get(scenario) ?? ''));
    }
    const tools = (scenario: string) =>
      by
        .get(scenario)
        ?.message?.parts.filter((part) => part.type.startsWith('tool-'))
        .map((part) => part.state);
    expect(tools('whole run')).toEqual(['output-available', 'output-available']);
    expect(tools('from a snapshot')).toEqual(['output-available', 'output-available']);
    expect(by.get('snapshot mid-arguments')?.message?.parts.at(-1)).toMatchObject({
      type: 'tool-query_order',
      state: 'input-available',
      input: { limit: 10 },
    });
    expect(tools('card expired')).toEqual(['output-available', 'output-denied']);
    // The SDK merges the metadata: the run's ids from `start`, the newest usage from the last chunk.
    for (const scenario of ['usage', 'usage, from a snapshot'])
      expect(by.get(scenario)?.message?.metadata).toEqual({
        runId: 'run_1',
        conversationId: 'conv_1',
        usage: TOTAL,
      });
    for (const scenario of ['interrupted', 'interrupted, from a snapshot'])
      expect(by.get(scenario)?.message?.parts.at(-1)).toMatchObject({
        type: 'text',
        text: '本轮异常中断，请核对刚才提交的操作是否已经生效。',
      });
  }, 120_000);
});

/** `RUN` with its three model calls' ends: the first and third report usage, the second nothing. */
const USAGE_RUN: RunEventDraft[] = [
  ...RUN.slice(0, 8),
  {
    type: 'step.finished',
    step: 1,
    finishReason: 'tool_calls',
    usage: { inputTokens: 1200, outputTokens: 90, reasoningTokens: 40, cachedInputTokens: 1024 },
  },
  ...RUN.slice(8, 16),
  { type: 'step.finished', step: 2, finishReason: 'tool_calls' },
  ...RUN.slice(16, -1),
  { type: 'step.finished', step: 3, finishReason: 'stop', usage: { inputTokens: 1400, outputTokens: 60 } },
  {
    type: 'run.finished',
    status: 'completed',
    usage: { inputTokens: 2600, outputTokens: 150, reasoningTokens: 40, cachedInputTokens: 1024 },
  },
];

/** The total in `ai` 7's `LanguageModelUsage` shape. */
const TOTAL = {
  inputTokens: 2600,
  inputTokenDetails: { noCacheTokens: 1576, cacheReadTokens: 1024 },
  outputTokens: 150,
  outputTokenDetails: { textTokens: 110, reasoningTokens: 40 },
  totalTokens: 2750,
};

function fullLog(): RunLog {
  const log = new RunLog('run_1', { now: () => 1 });
  for (const event of RUN) log.append(structuredClone(event));
  return log;
}
