import type { ChatMessage, ChatStreamPart, ToolCallRequest, ToolDefinition } from 'runstream';
import { describe, expect, it } from 'vitest';
import { turnProblems } from '../../../src/models/test-support/turn-problems.ts';
import { QUOTE_LIMIT } from './host-tool-flow.ts';
import { NovaShopDemoModel } from './novashop-demo-model.ts';
import {
  LOCAL_TIME,
  NOVASHOP_TOOLS,
  READ_FILE,
  schemaProblems,
  WRITE_FILE,
} from './test-support/host-tools.ts';

/** What the host and the server offer together, as on `POST /v1/responses` with host `tools`. */
const TOOLS: ToolDefinition[] = [...NOVASHOP_TOOLS, READ_FILE, LOCAL_TIME, WRITE_FILE];

const FILES: Record<string, string> = {
  'notes.txt': 'Buy milk.\nCall Alice at 3pm.',
  'README.md': '# runstream\n\nRuns of AI agents that people can watch.',
};
const NOW = '2025-05-01T10:00:00+08:00';

interface Turn {
  parts: ChatStreamPart[];
  reasoning: string;
  text: string;
  calls: ToolCallRequest[];
}

/** A host conversation: the model's turns, and the host answering each call with `run`. */
class Host {
  readonly messages: ChatMessage[] = [];
  readonly #model: NovaShopDemoModel;
  readonly #tools: ToolDefinition[];

  constructor(question: string, tools: ToolDefinition[] = TOOLS) {
    let next = 0;
    this.#model = new NovaShopDemoModel({ newToolCallId: () => `call_${++next}` });
    this.#tools = tools;
    this.messages.push({ role: 'user', content: question });
  }

  async turn(options: { tools?: ToolDefinition[] } = {}): Promise<Turn> {
    const parts: ChatStreamPart[] = [];
    for await (const part of this.#model.stream({
      messages: [...this.messages],
      tools: options.tools ?? this.#tools,
    })) {
      parts.push(part);
    }
    expect(turnProblems(parts)).toEqual([]);
    const joined = (type: 'reasoning-delta' | 'text-delta') =>
      parts.map((part) => (part.type === type ? part.text : '')).join('');
    const turn: Turn = {
      parts,
      reasoning: joined('reasoning-delta'),
      text: joined('text-delta'),
      calls: parts.flatMap((part) =>
        part.type === 'tool-call-end' ? [{ id: part.id, name: part.name, arguments: part.arguments }] : [],
      ),
    };
    this.messages.push({
      role: 'assistant',
      content: turn.text,
      ...(turn.calls.length > 0 ? { toolCalls: turn.calls } : {}),
    });
    return turn;
  }

  /** The host runs the calls and submits their outputs (`run` may override an output). */
  submit(turn: Turn, run: (call: ToolCallRequest) => string = defaultRun): void {
    for (const call of turn.calls)
      this.messages.push({ role: 'tool', toolCallId: call.id, content: run(call) });
  }
}

function defaultRun(call: ToolCallRequest): string {
  const args = JSON.parse(call.arguments) as { path?: string };
  if (call.name === 'read_file') {
    const content = FILES[args.path ?? ''];
    return content ?? JSON.stringify({ error: { code: 'ENOENT', message: `no such file: ${args.path}` } });
  }
  if (call.name === 'local_time') return JSON.stringify({ localTime: NOW, timezone: 'Asia/Shanghai' });
  return JSON.stringify({ error: { code: 'unknown_tool', message: call.name } });
}

/** Every call's arguments validate against its tool's JSON Schema. */
function expectValidArguments(turn: Turn, tools: ToolDefinition[] = TOOLS): void {
  for (const call of turn.calls) {
    const tool = tools.find((candidate) => candidate.name === call.name);
    expect(tool, call.name).toBeDefined();
    expect(schemaProblems(tool?.parameters ?? {}, JSON.parse(call.arguments))).toEqual([]);
  }
}

function callsOf(turn: Turn): [string, unknown][] {
  return turn.calls.map((call) => [call.name, JSON.parse(call.arguments)]);
}

describe('a host tool, named', () => {
  it('use read_file to read notes.txt: calls it, then answers from the output, in English', async () => {
    const host = new Host('use read_file to read notes.txt');
    const first = await host.turn();
    expect(callsOf(first)).toEqual([['read_file', { path: 'notes.txt' }]]);
    expectValidArguments(first);
    expect(first.reasoning).toBe(
      'The user wants to read notes.txt. read_file is a tool the host declared, so the host runs it.',
    );
    expect(first.text).toBe("I'll ask the host to read notes.txt.");
    expect([...new Set(first.parts.map((part) => part.type))]).toEqual([
      'reasoning-delta',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'finish',
    ]);
    // The arguments stream in fragments that join to the final JSON.
    const fragments = first.parts.flatMap((part) =>
      part.type === 'tool-call-delta' ? [part.argumentsDelta] : [],
    );
    expect(fragments.length).toBeGreaterThanOrEqual(2);
    expect(fragments.join('')).toBe(first.calls[0]?.arguments);
    expect(first.parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });

    host.submit(first);
    const second = await host.turn();
    expect(second.calls).toEqual([]);
    expect(second.text).toBe('The file notes.txt contains:\n```\nBuy milk.\nCall Alice at 3pm.\n```');
    expect(second.parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('调用 local_time: calls it with no arguments, answers with the time the host reports', async () => {
    const host = new Host('调用 local_time');
    const first = await host.turn();
    expect(callsOf(first)).toEqual([['local_time', {}]]);
    expect(first.reasoning).toBe('用户想知道本地时间，这是宿主声明的工具 local_time，交给宿主执行。');
    host.submit(first);
    const second = await host.turn();
    expect(second.text).toBe(`宿主报告的本地时间是 ${NOW}（Asia/Shanghai）。`);
  });
});

describe('a host tool, asked for in other words', () => {
  it('帮我读一下 README.md 这个文件: read_file, then the content quoted, in Chinese', async () => {
    const host = new Host('帮我读一下 README.md 这个文件');
    const first = await host.turn();
    expect(callsOf(first)).toEqual([['read_file', { path: 'README.md' }]]);
    expect(first.reasoning).toBe('用户要读取 README.md，这是宿主声明的工具 read_file，交给宿主执行。');
    expect(first.text).toBe('好的，我请宿主读取 README.md。');
    host.submit(first);
    const second = await host.turn();
    expect(second.text).toBe(
      '文件 README.md 的内容是：\n```\n# runstream\n\nRuns of AI agents that people can watch.\n```',
    );
  });

  it.each([
    ['What time is it?', `The host reports the local time as ${NOW} (Asia/Shanghai).`],
    ['现在几点了', `宿主报告的本地时间是 ${NOW}（Asia/Shanghai）。`],
  ])('%s: local_time', async (question, answer) => {
    const host = new Host(question);
    const first = await host.turn();
    expect(callsOf(first)).toEqual([['local_time', {}]]);
    host.submit(first);
    expect((await host.turn()).text).toBe(answer);
  });

  it('passes the zone the user names, and reads a plain-text output', async () => {
    const host = new Host('东京现在几点？');
    const first = await host.turn();
    expect(callsOf(first)).toEqual([['local_time', { timezone: 'Asia/Tokyo' }]]);
    host.submit(first, () => '11:00');
    expect((await host.turn()).text).toBe('宿主报告的本地时间是 11:00（Asia/Tokyo）。');
  });
});

describe('two host tools in one turn', () => {
  it('read notes.txt and tell me the local time: parallel calls 0 and 1, then one answer from both', async () => {
    const host = new Host('read notes.txt and tell me the local time');
    const first = await host.turn();
    expect(callsOf(first)).toEqual([
      ['read_file', { path: 'notes.txt' }],
      ['local_time', {}],
    ]);
    expectValidArguments(first);
    expect(first.parts.filter((part) => part.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'read_file' },
      { type: 'tool-call-start', index: 1, id: 'call_2', name: 'local_time' },
    ]);
    expect(first.reasoning).toContain('read_file and local_time are tools the host declared');
    expect(first.text).toBe("I'll ask the host to read notes.txt and check the local time.");
    expect(first.parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });

    host.submit(first);
    const second = await host.turn();
    expect(second.calls).toEqual([]);
    expect(second.text).toBe(
      'The file notes.txt contains:\n```\nBuy milk.\nCall Alice at 3pm.\n```\n\n' +
        `The host reports the local time as ${NOW} (Asia/Shanghai).`,
    );
  });

  it('读一下 notes.txt，再告诉我现在几点: the same in Chinese', async () => {
    const host = new Host('读一下 notes.txt，再告诉我现在几点');
    const first = await host.turn();
    expect(first.calls.map((call) => call.name)).toEqual(['read_file', 'local_time']);
    expect(first.reasoning).toBe(
      '用户要读取 notes.txt，还想知道本地时间，这些是宿主声明的工具（read_file、local_time），一轮里并行调用，交给宿主执行。',
    );
    host.submit(first);
    const second = await host.turn();
    expect(second.text).toContain('文件 notes.txt 的内容是：\n```\nBuy milk.');
    expect(second.text).toContain(`宿主报告的本地时间是 ${NOW}`);
  });
});

describe('what the host sends back', () => {
  it('an error: says so politely, in the host’s words', async () => {
    const host = new Host('read the file missing.txt');
    const first = await host.turn();
    expect(callsOf(first)).toEqual([['read_file', { path: 'missing.txt' }]]);
    host.submit(first);
    const second = await host.turn();
    expect(second.text).toBe(
      'Sorry, the host could not run read_file: no such file: missing.txt. ' +
        'Please check that missing.txt exists and is spelled right, and I can try again.',
    );
    expect(second.parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it.each([
    ['{"error":"permission denied"}', 'permission denied'],
    ['Error: EACCES: permission denied', 'Error: EACCES: permission denied'],
    ['{"isError":true,"content":"disk unplugged"}', 'disk unplugged'],
    ['{"ok":false,"message":"timed out"}', 'timed out'],
  ])('other error shapes: %s', async (output, message) => {
    const host = new Host('帮我读一下 notes.txt');
    host.submit(await host.turn(), () => output);
    const answer = await host.turn();
    expect(answer.text).toBe(
      `抱歉，宿主执行 read_file 时出错了：${message}。请确认 notes.txt 是否存在、有没有写对，我可以再试一次。`,
    );
  });

  it('a rejection: the host did not run it', async () => {
    const host = new Host('调用 local_time');
    host.submit(await host.turn(), () => JSON.stringify({ rejected: true, message: '用户拒绝了' }));
    expect((await host.turn()).text).toBe('宿主没有执行 local_time（用户拒绝了）。');
  });

  it('a long output: the first QUOTE_LIMIT characters, with a note', async () => {
    const long = 'x'.repeat(2000);
    const host = new Host('read notes.txt');
    host.submit(await host.turn(), () => long);
    const answer = await host.turn();
    expect(answer.text).toBe(
      `The file notes.txt contains:\n\`\`\`\n${'x'.repeat(QUOTE_LIMIT)}\n\`\`\`\n` +
        `(The output is 2000 characters long; this shows the first ${QUOTE_LIMIT}.)`,
    );
  });

  it('JSON output: the file’s content field, or the JSON as sent; fences longer than any backticks in it', async () => {
    const host = new Host('read notes.txt');
    host.submit(await host.turn(), () =>
      JSON.stringify({ path: 'notes.txt', content: 'use ```code``` here' }),
    );
    expect((await host.turn()).text).toBe('The file notes.txt contains:\n````\nuse ```code``` here\n````');

    const tool = { name: 'disk_usage', description: 'Disk usage of the local machine', parameters: {} };
    const other = new Host('调用 disk_usage', [...TOOLS, tool]);
    other.submit(await other.turn(), () => '{"used":"41%","free":"120G"}');
    expect((await other.turn()).text).toBe('disk_usage 返回的结果是：{"used":"41%","free":"120G"}');
  });

  it('empty output: an empty file, or nothing returned', async () => {
    const file = new Host('read notes.txt');
    file.submit(await file.turn(), () => '');
    expect((await file.turn()).text).toBe('The file notes.txt is empty.');
    const time = new Host('现在几点了');
    time.submit(await time.turn(), () => '');
    expect((await time.turn()).text).toBe('local_time 没有返回任何内容。');
  });

  it('answers from the output on the summary turn too (no tools offered)', async () => {
    const host = new Host('调用 local_time');
    host.submit(await host.turn());
    const summary = await host.turn({ tools: [] });
    expect(summary.text).toBe(`宿主报告的本地时间是 ${NOW}（Asia/Shanghai）。`);
  });
});

describe('when a host tool cannot be called, or none is asked for', () => {
  it('asks for the file when the message names none, and calls nothing', async () => {
    const turn = await new Host('帮我读一下这个文件').turn();
    expect(turn.calls).toEqual([]);
    expect(turn.text).toBe('要调用宿主的 read_file，还需要你告诉我文件名或路径（例如 notes.txt）。');
    expect(turn.parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('writes only when asked to write, with arguments that fit', async () => {
    const host = new Host('write "hello there" to notes.txt');
    const first = await host.turn();
    expect(callsOf(first)).toEqual([['write_file', { path: 'notes.txt', content: 'hello there' }]]);
    expectValidArguments(first);
    host.submit(first, () => 'wrote 11 bytes');
    expect((await host.turn()).text).toBe('The host wrote notes.txt. It says: wrote 11 bytes');
  });

  it.each([
    ['我的订单到哪了', 'query_order', '{"limit":10}'],
    ['88235 现在什么状态', 'query_order', '{"orderId":"88235"}'],
    ['我买的那块表还没发货的话，帮我取消吧，不想要了。', 'load_skill', '{"name":"order-change"}'],
    ['退款要多长时间', 'search_knowledge', '{"query":"退款要多长时间","topK":5}'],
  ])('%s: the NovaShop scenario, as without host tools', async (question, name, args) => {
    const withHost = await new Host(question).turn();
    const without = await new Host(question, NOVASHOP_TOOLS).turn();
    expect(withHost.calls).toEqual([{ id: 'call_1', name, arguments: args }]);
    expect(withHost.parts).toEqual(without.parts);
  });

  it('今天天气怎么样 without a weather tool: the polite NovaShop refusal', async () => {
    const turn = await new Host('今天天气怎么样').turn();
    expect(turn.calls).toEqual([]);
    expect(turn.text.startsWith('抱歉，这个问题我暂时帮不上忙')).toBe(true);
  });
});
