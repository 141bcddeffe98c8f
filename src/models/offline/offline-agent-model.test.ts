import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest, ChatStreamPart, ToolDefinition } from '../chat-model.ts';
import { OfflineAgentModel, type OfflineAgentModelOptions } from './offline-agent-model.ts';

/** What one streamed turn said and did. */
interface Turn {
  parts: ChatStreamPart[];
  reasoning: string;
  text: string;
  calls: { id: string; name: string; args: Record<string, unknown> }[];
  finish: string | undefined;
}

async function turn(request: ChatRequest, options: OfflineAgentModelOptions = {}): Promise<Turn> {
  const parts: ChatStreamPart[] = [];
  for await (const part of new OfflineAgentModel(options).stream(request)) parts.push(part);
  const finish = parts.at(-1);
  return {
    parts,
    reasoning: parts.map((part) => (part.type === 'reasoning-delta' ? part.text : '')).join(''),
    text: parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join(''),
    calls: parts.flatMap((part) =>
      part.type === 'tool-call-end'
        ? [{ id: part.id, name: part.name, args: JSON.parse(part.arguments) }]
        : [],
    ),
    finish: finish?.type === 'finish' ? finish.reason : undefined,
  };
}

const SYSTEM: ChatMessage = { role: 'system', content: '你是家电维修助手。' };

const SEARCH: ToolDefinition = {
  name: 'search_knowledge',
  description: '检索知识库，返回命中的条款及其出处。',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', maxLength: 200 },
      topK: { type: 'integer', minimum: 1, maximum: 8 },
    },
    required: ['query'],
  },
};

const LOAD_SKILL: ToolDefinition = {
  name: 'load_skill',
  description:
    'Load a handbook before a task it covers; some tools appear only after it is loaded.\n' +
    'warranty-claims: 保修申请的条件和所需材料\n' +
    'repair-changes: 取消或改约维修预约的办理流程',
  parameters: {
    type: 'object',
    properties: { name: { type: 'string', enum: ['warranty-claims', 'repair-changes'] } },
    required: ['name'],
  },
};

const QUERY_REPAIR: ToolDefinition = {
  name: 'query_repair',
  description: '查询维修单的状态、上门时间和师傅。',
  parameters: {
    type: 'object',
    properties: { repairId: { type: 'string', pattern: '^R-\\d+$', description: '维修单号，如 R-1001' } },
    required: ['repairId'],
  },
};

const CANCEL_REPAIR: ToolDefinition = {
  name: 'cancel_repair',
  description: '取消维修预约（师傅上门前可以取消）。',
  parameters: {
    type: 'object',
    properties: {
      repairId: { type: 'string', pattern: '^R-\\d+$', description: '维修单号，如 R-1001' },
      reason: { type: 'string', description: '取消原因' },
    },
    required: ['repairId'],
    additionalProperties: false,
  },
};

const BOOK_REPAIR: ToolDefinition = {
  name: 'book_repair',
  description: 'Book a repair visit for an appliance.',
  parameters: {
    type: 'object',
    properties: {
      serialNumber: { type: 'string', title: 'the serial number' },
      slot: { type: 'string', enum: ['morning', 'afternoon'], title: 'the time slot' },
    },
    required: ['serialNumber', 'slot'],
  },
};

const user = (content: string): ChatMessage => ({ role: 'user', content });

/** The request after the model called `name` with `args` and the tool answered `result`. */
function afterCall(
  messages: readonly ChatMessage[],
  name: string,
  args: Record<string, unknown>,
  result: unknown,
  tools: readonly ToolDefinition[],
): ChatRequest {
  const id = `call_${name}`;
  return {
    messages: [
      ...messages,
      { role: 'assistant', content: '', toolCalls: [{ id, name, arguments: JSON.stringify(args) }] },
      { role: 'tool', toolCallId: id, content: typeof result === 'string' ? result : JSON.stringify(result) },
    ],
    tools,
  };
}

const WARRANTY_HITS = {
  query: '空调保修多久？',
  lowEvidence: false,
  hits: [
    {
      text: '人为损坏不在保修范围内。',
      context: '## 不保修的情况\n人为损坏不在保修范围内。',
      section: '保修政策 › 不保修的情况',
      citation: 'knowledge/warranty.md#L12',
      contextCitations: ['knowledge/warranty.md#L11', 'knowledge/warranty.md#L12'],
    },
    {
      text: '空调整机保修一年。',
      context: '## 保修期\n空调整机保修一年。\n压缩机保修 5 年。',
      section: '保修政策 › 保修期',
      citation: 'knowledge/warranty.md#L4',
      contextCitations: ['knowledge/warranty.md#L3', 'knowledge/warranty.md#L4', 'knowledge/warranty.md#L5'],
    },
    {
      text: '空调整机保修一年',
      context: '空调整机保修一年',
      section: '常见问题',
      citation: 'knowledge/faq.md#L8',
      contextCitations: ['knowledge/faq.md#L8'],
    },
  ],
};

describe('OfflineAgentModel', () => {
  it('is named offline and searches the knowledge for a question, with the message as query', async () => {
    const result = await turn({
      messages: [SYSTEM, user('你好，空调保修 3 年吗？')],
      tools: [LOAD_SKILL, SEARCH],
    });
    expect(new OfflineAgentModel().name).toBe('offline');
    expect(result.calls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        name: 'search_knowledge',
        args: { query: '空调保修 3 年吗？' }, // the number is not topK
      },
    ]);
    expect(result.finish).toBe('tool_calls');
    expect(result.reasoning).toContain('空调保修 3 年吗？');
    expect(result.text).toBe('');
    // Streamed like a real model: reasoning first, in small deltas, the arguments in fragments.
    expect(result.parts[0]?.type).toBe('reasoning-delta');
    for (const part of result.parts) {
      if (part.type === 'reasoning-delta') expect(Array.from(part.text).length).toBeLessThanOrEqual(6);
    }
    expect(result.parts.filter((part) => part.type === 'tool-call-delta').length).toBeGreaterThan(1);
  });

  it('answers from the hits: the most relevant clauses first, each once, with their citations', async () => {
    const messages = [SYSTEM, user('空调保修多久？')];
    const result = await turn(
      afterCall(messages, 'search_knowledge', { query: '空调保修多久？' }, WARRANTY_HITS, [SEARCH]),
    );
    expect(result.calls).toEqual([]);
    expect(result.finish).toBe('stop');
    expect(result.text).toBe(
      [
        '根据知识库里的内容：空调整机保修一年。（来源：knowledge/warranty.md#L4；knowledge/faq.md#L8）',
        '相关的还有：',
        '- 压缩机保修 5 年。（来源：knowledge/warranty.md#L5）',
      ].join('\n'),
    );
  });

  it('cites in English as " (source: …)" when the question is in English', async () => {
    const hits = {
      lowEvidence: false,
      hits: [{ text: 'The whole unit is covered for one year.', citation: 'knowledge/warranty.md#L4' }],
    };
    const messages = [SYSTEM, user('How long is the warranty?')];
    const result = await turn(afterCall(messages, 'search_knowledge', { query: 'warranty' }, hits, [SEARCH]));
    expect(result.text).toBe(
      'According to the knowledge base: The whole unit is covered for one year. (source: knowledge/warranty.md#L4)',
    );
  });

  it('says it found no basis when the evidence is low, and does not quote it', async () => {
    const low = { ...WARRANTY_HITS, lowEvidence: true };
    const result = await turn(
      afterCall([SYSTEM, user('空调保修多久？')], 'search_knowledge', {}, low, [SEARCH]),
    );
    expect(result.text).toContain('没有找到能可靠回答这个问题的依据');
    expect(result.text).toContain('换个说法');
    expect(result.text).toContain('人工');
    expect(result.text).not.toContain('来源');
    const none = await turn(
      afterCall(
        [SYSTEM, user('Do you repair boats?')],
        'search_knowledge',
        {},
        { lowEvidence: false, hits: [] },
        [SEARCH],
      ),
    );
    expect(none.text).toMatch(/^I couldn't find a reliable basis/);
    expect(none.text).toContain('rephrase');
  });

  it('says the search failed when it did', async () => {
    const failed = { error: { code: 'tool_timeout', message: '工具执行超时（15000 毫秒）' } };
    const result = await turn(
      afterCall([SYSTEM, user('空调保修多久？')], 'search_knowledge', {}, failed, [SEARCH]),
    );
    expect(result.text).toBe('知识检索没有成功：工具执行超时（15000 毫秒）。请稍后再试，或者联系人工客服。');
  });

  it('loads the skill whose description matches an action, then calls the tool it unlocked', async () => {
    const messages = [SYSTEM, user('帮我取消维修单 R-1001')];
    // The look-up tool is offered, but a cancellation is not a look-up.
    const first = await turn({ messages, tools: [LOAD_SKILL, SEARCH, QUERY_REPAIR] });
    expect(first.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'load_skill', args: { name: 'repair-changes' } },
    ]);
    const loaded = {
      name: 'repair-changes',
      title: '维修变更手册',
      unlockedTools: ['cancel_repair'],
      handbook: '…',
    };
    const second = await turn(
      afterCall(messages, 'load_skill', { name: 'repair-changes' }, loaded, [
        LOAD_SKILL,
        SEARCH,
        QUERY_REPAIR,
        CANCEL_REPAIR,
      ]),
    );
    expect(second.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'cancel_repair', args: { repairId: 'R-1001' } },
    ]);
    expect(second.finish).toBe('tool_calls');
  });

  it('does the same for an English request, reading the reason too', async () => {
    const messages = [SYSTEM, user('Please cancel my repair booking R-1001 because I fixed it myself')];
    const loadSkill: ToolDefinition = {
      ...LOAD_SKILL,
      description:
        'Load a handbook.\nwarranty-claims: How to claim the warranty\nrepair-changes: How to cancel or reschedule a repair visit',
    };
    const cancel: ToolDefinition = {
      ...CANCEL_REPAIR,
      description: 'Cancel a repair visit before the technician comes.',
    };
    const first = await turn({ messages, tools: [loadSkill, SEARCH, BOOK_REPAIR] }, { language: 'zh-CN' });
    expect(first.calls.map((call) => call.args)).toEqual([{ name: 'repair-changes' }]);
    expect(first.reasoning).toMatch(/^This needs the "repair-changes" handbook/);
    const second = await turn(
      afterCall(messages, 'load_skill', { name: 'repair-changes' }, { name: 'repair-changes' }, [
        loadSkill,
        SEARCH,
        BOOK_REPAIR,
        cancel,
      ]),
    );
    expect(second.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'cancel_repair', args: { repairId: 'R-1001', reason: 'I fixed it myself' } },
    ]);
  });

  it('calls a look-up tool directly, without a skill', async () => {
    const result = await turn({
      messages: [SYSTEM, user('查询维修单 R-1001 的进度')],
      tools: [LOAD_SKILL, SEARCH, QUERY_REPAIR],
    });
    expect(result.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'query_repair', args: { repairId: 'R-1001' } },
    ]);
  });

  it('asks for a required value the message does not give instead of calling the tool', async () => {
    const result = await turn({
      messages: [SYSTEM, user('我要取消维修预约')],
      tools: [SEARCH, CANCEL_REPAIR],
    });
    expect(result.calls).toEqual([]);
    expect(result.finish).toBe('stop');
    expect(result.text).toBe('要办这件事，我还需要知道：维修单号。请告诉我，我再继续。');
    const english = await turn({
      messages: [SYSTEM, user('Book a repair for my washer SN-778812 please')],
      tools: [SEARCH, BOOK_REPAIR],
    });
    expect(english.calls).toEqual([]);
    expect(english.text).toBe("To do this I still need: the time slot. Please tell me and I'll carry on.");
  });

  it('reads a reply that only gives the missing value together with the request before it', async () => {
    const result = await turn({
      messages: [
        SYSTEM,
        user('我要取消维修预约'),
        { role: 'assistant', content: '要办这件事，我还需要知道：维修单号。请告诉我，我再继续。' },
        user('R-1002'),
      ],
      tools: [SEARCH, QUERY_REPAIR, CANCEL_REPAIR],
    });
    expect(result.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'cancel_repair', args: { repairId: 'R-1002' } },
    ]);
  });

  it("fills an enum the message mentions and an identifier, in the tool's order", async () => {
    const result = await turn({
      messages: [SYSTEM, user('Please book a repair for washer SN-778812, afternoon works best')],
      tools: [SEARCH, BOOK_REPAIR],
    });
    expect(result.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'book_repair', args: { serialNumber: 'SN-778812', slot: 'afternoon' } },
    ]);
  });

  it('searches for a how-to question rather than doing the deed', async () => {
    const result = await turn({
      messages: [SYSTEM, user('怎么取消维修预约？')],
      tools: [LOAD_SKILL, SEARCH, CANCEL_REPAIR],
    });
    expect(result.calls.map((call) => call.name)).toEqual(['search_knowledge']);
  });

  it("answers in the user's language, else in the agent's", async () => {
    const tools = [SEARCH, QUERY_REPAIR];
    const english = await turn({ messages: [SYSTEM, user('hello there')], tools }, { language: 'zh-CN' });
    expect(english.text).toMatch(/^Hello!/);
    const chinese = await turn({ messages: [SYSTEM, user('你好')], tools }, { language: 'en' });
    expect(chinese.text).toMatch(/^你好！/);
    const neither = await turn({ messages: [SYSTEM, user('？？')], tools }, { language: 'en' });
    expect(neither.text).toMatch(/^I'm not sure what you mean/);
    const byDefault = await turn({ messages: [SYSTEM, user('？？')], tools });
    expect(byDefault.text).toMatch(/^我没太明白/);
  });

  it('greets with what the agent can do and names no business', async () => {
    const full = await turn({ messages: [SYSTEM, user('你好！')], tools: [SEARCH, QUERY_REPAIR] });
    expect(full.text).toBe('你好！我可以根据知识库回答问题，也可以帮你办理一些事情。请问有什么可以帮你？');
    const bare = await turn({ messages: [SYSTEM, user('Hi')] });
    expect(bare.text).toBe('Hello! How can I help you?');
    expect(`${full.text}${bare.text}`).not.toMatch(/NovaShop|shop|商城|店/i);
  });

  it('says a question cannot be looked up when no search is offered', async () => {
    const result = await turn({ messages: [SYSTEM, user('空调保修多久？')], tools: [] });
    expect(result.calls).toEqual([]);
    expect(result.text).toContain('没有可以查的资料');
  });

  it('says a rejected action was not carried out', async () => {
    const rejected = { rejected: true, message: '用户拒绝了这个操作，未执行。' };
    const messages = [SYSTEM, user('取消维修单 R-1001')];
    const result = await turn(
      afterCall(messages, 'cancel_repair', { repairId: 'R-1001' }, rejected, [CANCEL_REPAIR]),
    );
    expect(result.text).toBe('好的，这个操作没有执行。之后如果还需要，随时告诉我。');
    const english = await turn(
      afterCall([SYSTEM, user('cancel repair R-1001')], 'cancel_repair', { repairId: 'R-1001' }, rejected, [
        CANCEL_REPAIR,
      ]),
    );
    expect(english.text).toBe(
      "OK, that action was not carried out. Just tell me if you'd like it done later.",
    );
  });

  it('says what failed, and answers from a result by its message or its fields', async () => {
    const messages = [SYSTEM, user('取消维修单 R-1001')];
    const failed = await turn(
      afterCall(
        messages,
        'cancel_repair',
        {},
        { error: { code: 'too_late', message: '师傅已上门，不能取消' } },
        [CANCEL_REPAIR],
      ),
    );
    expect(failed.text).toBe('这一步没有成功：师傅已上门，不能取消。');
    const withMessage = await turn(
      afterCall(messages, 'cancel_repair', {}, { status: 'cancelled', message: '维修预约 R-1001 已取消。' }, [
        CANCEL_REPAIR,
      ]),
    );
    expect(withMessage.text).toBe('维修预约 R-1001 已取消。');
    const fields = await turn(
      afterCall(
        [SYSTEM, user('查询维修单 R-1001')],
        'query_repair',
        {},
        { status: '已派单', visit: { date: '2025-06-01', slot: '下午' }, parts: ['滤网', '电容'] },
        [QUERY_REPAIR],
      ),
    );
    expect(fields.text).toBe(
      [
        '结果如下：',
        '- status：已派单',
        '- visit：（date：2025-06-01，slot：下午）',
        '- parts：滤网、电容',
      ].join('\n'),
    );
  });

  it("answers the runtime's summary turn from the last tool result", async () => {
    const request = afterCall(
      [SYSTEM, user('查询维修单 R-1001')],
      'query_repair',
      {},
      { message: '已派单，明天上午上门。' },
      [],
    );
    const result = await turn({
      messages: [...request.messages, user('请根据目前已有的工具结果，总结当前的执行情况并回答用户。')],
      tools: [],
    });
    expect(result.text).toBe('已派单，明天上午上门。');
  });

  it('honours the abort signal between parts', async () => {
    const controller = new AbortController();
    const model = new OfflineAgentModel({ delayMs: 5 });
    const seen: ChatStreamPart[] = [];
    await expect(async () => {
      for await (const part of model.stream({
        messages: [SYSTEM, user('空调保修多久？')],
        tools: [SEARCH],
        signal: controller.signal,
      })) {
        seen.push(part);
        if (seen.length === 2) controller.abort(new Error('stopped'));
      }
    }).rejects.toThrow('stopped');
    expect(seen).toHaveLength(2);
  });

  it('reads what a tool does from its first sentence, not from the states its description lists', async () => {
    const orderId = {
      type: 'string',
      pattern: '^R-\\d{4}$',
      title: '维修单号',
      description: '维修单号，例如 R-1001',
    };
    const query: ToolDefinition = {
      name: 'query_repair',
      description:
        '查询客户本人的家电维修单：不带参数返回全部维修单。结果包括状态（待派单、待上门、维修中、已完成、已取消）。',
      parameters: { type: 'object', properties: { orderId } },
    };
    const cancel: ToolDefinition = {
      name: 'cancel_repair',
      description: '取消客户本人的一张维修单。维修中、已完成、已取消的维修单会被拒绝。',
      parameters: {
        type: 'object',
        properties: { orderId, reason: { type: 'string', title: '取消原因', minLength: 1, maxLength: 200 } },
        required: ['orderId'],
      },
    };
    const loadSkill: ToolDefinition = {
      ...LOAD_SKILL,
      description:
        'Load a handbook before a task it covers; some tools appear only after it is loaded.\n' +
        'repair-change: 客户要取消维修单、改约上门时间，或说“师傅别来了”时先加载；按维修单状态说明能做什么，并解锁 cancel_repair。',
      parameters: {
        type: 'object',
        properties: { name: { type: 'string', enum: ['repair-change'] } },
        required: ['name'],
      },
    };
    const messages = [SYSTEM, user('帮我取消维修单 R-1001，原因：已经自己修好了')];
    const first = await turn({ messages, tools: [loadSkill, SEARCH, query] });
    expect(first.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'load_skill', args: { name: 'repair-change' } },
    ]);
    const second = await turn(
      afterCall(messages, 'load_skill', { name: 'repair-change' }, { name: 'repair-change' }, [
        loadSkill,
        SEARCH,
        query,
        cancel,
      ]),
    );
    expect(second.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'cancel_repair', args: { orderId: 'R-1001', reason: '已经自己修好了' } },
    ]);
    const lookUp = await turn({
      messages: [SYSTEM, user('查询维修单 R-1001 的进度')],
      tools: [loadSkill, SEARCH, query],
    });
    expect(lookUp.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'query_repair', args: { orderId: 'R-1001' } },
    ]);
  });
});
