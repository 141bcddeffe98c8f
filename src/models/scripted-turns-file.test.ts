import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatStreamPart } from './chat-model.ts';
import {
  createScriptedModelFromFile,
  loadScriptedTurns,
  ScriptedTurnsFileError,
} from './scripted-turns-file.ts';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'scripted-turns-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function script(lines: readonly string[]): string {
  const path = join(directory, 'turns.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function drain(stream: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function fileError(action: () => unknown): ScriptedTurnsFileError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ScriptedTurnsFileError);
    return error as ScriptedTurnsFileError;
  }
  throw new Error('nothing was thrown');
}

describe('loadScriptedTurns / createScriptedModelFromFile', () => {
  it('replays the turns of a file in order, shorthands expanded and finish parts added', async () => {
    const path = script([
      '[{"type":"reasoning","text":"先查知识库。"},{"type":"tool-call","name":"search_knowledge","arguments":{"query":"保修"},"id":"call_a"}]',
      '',
      '{"parts":[{"type":"text","text":"整机保修一年。"},{"type":"finish","reason":"stop","usage":{"inputTokens":3,"outputTokens":2}}],"delayMs":1}',
      '[{"type":"text-delta","text":"raw "},{"type":"tool-call-start","index":0,"id":"c","name":"t"},{"type":"tool-call-end","index":0,"id":"c","name":"t","arguments":"{}"}]',
    ]);
    const model = createScriptedModelFromFile(path);
    expect(model.name).toBe('scripted:turns.jsonl');
    expect(model.remainingTurns).toBe(3);
    const messages = [{ role: 'user' as const, content: '保修多久' }];
    expect(await drain(model.stream({ messages }))).toEqual([
      { type: 'reasoning-delta', text: '先查知识库。' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'search_knowledge' },
      { type: 'tool-call-delta', index: 0, id: 'call_a', argumentsDelta: '{"query":"保修"}' },
      {
        type: 'tool-call-end',
        index: 0,
        id: 'call_a',
        name: 'search_knowledge',
        arguments: '{"query":"保修"}',
      },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    expect(await drain(model.stream({ messages }))).toEqual([
      { type: 'text-delta', text: '整机保修一年。' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } },
    ]);
    const third = await drain(model.stream({ messages }));
    expect(third.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
    await expect(drain(model.stream({ messages }))).rejects.toThrow(/only 3 turns were scripted/);
  });

  it('keeps failAt, so a script can break a stream', async () => {
    const path = script(['{"parts":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"failAt":1}']);
    const [turn] = loadScriptedTurns(path);
    expect(turn).toEqual({
      parts: [
        { type: 'text-delta', text: 'a' },
        { type: 'text-delta', text: 'b' },
      ],
      failAt: 1,
    });
    const model = createScriptedModelFromFile(path);
    await expect(drain(model.stream({ messages: [] }))).rejects.toThrow(/scripted failure of turn 1/);
  });

  it('names the file and line of a line that is not JSON', () => {
    const path = script(['[{"type":"text","text":"ok"}]', '', '[{"type":"text","text":"oops"]']);
    const error = fileError(() => loadScriptedTurns(path));
    expect(error.file).toBe(path);
    expect(error.line).toBe(3);
    expect(error.message).toMatch(new RegExp(`^${escapeRegExp(path)}:3: not JSON`));
  });

  it('names the line and the part of a line that is not a turn', () => {
    const path = script(['[{"type":"text","text":"ok"}]', '[{"type":"txt","text":"typo"}]']);
    const error = fileError(() => loadScriptedTurns(path));
    expect(error.line).toBe(2);
    expect(error.message).toMatch(
      new RegExp(`^${escapeRegExp(path)}:2: part 1: type "txt" is not one of text, reasoning, tool-call,`),
    );
    const noName = script(['[{"type":"text","text":"ok"},{"type":"tool-call"}]']);
    expect(fileError(() => loadScriptedTurns(noName)).message).toMatch(/:1: part 2 \(tool-call\): name: /);
    const extra = script(['{"parts":[],"delay":5}']);
    expect(fileError(() => loadScriptedTurns(extra)).message).toMatch(/:1: Unrecognized key: "delay"/);
  });

  it('names the line of a turn the scripted model rejects', () => {
    const path = script([
      '[{"type":"text","text":"ok"}]',
      '',
      '[{"type":"finish","reason":"stop"},{"type":"text","text":"late"}]',
    ]);
    const error = fileError(() => createScriptedModelFromFile(path));
    expect(error.line).toBe(3);
    expect(error.message).toContain('parts after its finish part');
  });

  it('says when the file is missing or empty', () => {
    const missing = join(directory, 'nope.jsonl');
    expect(fileError(() => loadScriptedTurns(missing)).message).toBe(
      `${missing}: cannot read the scripted turns (no such file)`,
    );
    expect(fileError(() => loadScriptedTurns(script(['', '  ']))).message).toMatch(/has no turns/);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
