import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedChatModel } from '../models/index.ts';
import { RUN_MESSAGES } from '../runtime/agent/run-messages.ts';
import { type AnyTool, type ToolContext, ToolError, type ToolPolicy } from '../runtime/index.ts';
import type { AgentConfig } from './agent.ts';
import { AgentDefinitionError } from './agent-definition-error.ts';
import { defineAgent } from './define-agent.ts';
import { type ResolveAgentOptions, resolveAgent } from './resolve-agent.ts';
import type { KnowledgeSearch } from './search-knowledge-tool.ts';
import { tool } from './tool.ts';

const context: ToolContext = {
  runId: 'run_1',
  conversationId: 'conv_1',
  userId: 'usr_1',
  toolCallId: 'call_1',
  signal: new AbortController().signal,
};
const model = new ScriptedChatModel([]);
const knowledge: KnowledgeSearch = { search: async () => ({ hits: [], lowEvidence: true }) };

const base: AgentConfig = { id: 'homefix', name: 'HomeFix', instructions: '你是家电维修助手。' };

async function resolved(config: Partial<AgentConfig>, options: Partial<ResolveAgentOptions> = {}) {
  const handle = await resolveAgent(defineAgent({ ...base, ...config }), { model, ...options });
  await handle.close();
  return handle.agent;
}

function byName(tools: readonly AnyTool[], name: string): AnyTool {
  const found = tools.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

const repairInput = z.object({
  serialNumber: z.string().meta({ title: '序列号', description: 'The serial number on the label' }),
  appliance: z.string().describe('电器'),
  address: z.object({ city: z.string(), street: z.string() }).optional(),
  note: z.string().optional(),
});
const bookRepair = tool({
  name: 'book_repair',
  title: '预约上门维修',
  description: '为用户预约上门维修。',
  inputSchema: repairInput,
  execute: (input) => ({ booked: input.serialNumber }),
});

describe('resolveAgent: approval', () => {
  it('maps readOnly and needsApproval to the effect, and a function to a per-call decision', async () => {
    const make = (name: string, extra: object) =>
      tool({
        name,
        description: name,
        inputSchema: z.object({ amount: z.number() }),
        execute: () => 'ok',
        ...extra,
      });
    const agent = await resolved({
      tools: [
        make('look', { readOnly: true }),
        make('write', {}),
        make('always', { readOnly: true, needsApproval: true }),
        make('never', { needsApproval: false }),
        make('refund', { needsApproval: (input: { amount: number }) => input.amount > 100 }),
      ],
    });
    const effects = Object.fromEntries(agent.tools.map((item) => [item.name, item.effect]));
    expect(effects).toEqual({
      look: 'read',
      write: 'write',
      always: 'write',
      never: 'read',
      refund: 'write',
    });
    expect(byName(agent.tools, 'look').confirm).toBeUndefined();
    expect(byName(agent.tools, 'never').confirm).toBeUndefined();
    expect(byName(agent.tools, 'write').needsApproval).toBeUndefined();
    const refund = byName(agent.tools, 'refund');
    expect(await refund.needsApproval?.({ amount: 500 }, context)).toBe(true);
    expect(await refund.needsApproval?.({ amount: 5 }, context)).toBe(false);
  });

  it('the default card: title, description, one row per given argument labelled by title, else description, else name', async () => {
    const agent = await resolved({
      tools: [
        bookRepair,
        tool({
          name: 'order_part',
          description: 'Order a spare part.',
          inputSchema: {
            type: 'object',
            properties: {
              part: { type: 'string', description: 'The part number\nas printed' },
              qty: { type: 'integer' },
            },
          },
          execute: () => 'ordered',
        }),
      ],
    });
    expect(
      await byName(agent.tools, 'book_repair').confirm?.(
        { appliance: '洗衣机', serialNumber: 'SN123', address: { city: '杭州', street: '文三路 1 号' } },
        context,
      ),
    ).toEqual({
      title: '预约上门维修',
      description: '为用户预约上门维修。',
      details: [
        { label: '序列号', value: 'SN123' },
        { label: '电器', value: '洗衣机' },
        { label: 'address', value: '{"city":"杭州","street":"文三路 1 号"}' },
      ],
    });
    expect(await byName(agent.tools, 'order_part').confirm?.({ qty: 2, part: 'P-9' }, context)).toEqual({
      title: 'order_part',
      description: 'Order a spare part.',
      details: [
        { label: 'The part number', value: 'P-9' },
        { label: 'qty', value: '2' },
      ],
    });
  });

  it('the author’s card, its fields as the card’s rows; a ToolError refuses before any card', async () => {
    const agent = await resolved({
      tools: [
        tool({
          ...bookRepair,
          confirmation: async (input) => {
            if (input.serialNumber === 'gone') throw new ToolError('unknown_appliance', '没有这台电器');
            return {
              title: '预约维修',
              description: input.appliance,
              fields: [{ label: '序列号', value: input.serialNumber }],
            };
          },
        }),
      ],
    });
    const confirm = byName(agent.tools, 'book_repair').confirm;
    expect(await confirm?.({ serialNumber: 'SN1', appliance: '冰箱' }, context)).toEqual({
      title: '预约维修',
      description: '冰箱',
      details: [{ label: '序列号', value: 'SN1' }],
    });
    await expect(confirm?.({ serialNumber: 'gone', appliance: '冰箱' }, context)).rejects.toMatchObject({
      code: 'unknown_appliance',
    });
  });
});

describe('resolveAgent: tool settings', () => {
  it('fills card templates over the input, dropping a row whose values the call left out', async () => {
    const agent = await resolved({
      tools: [bookRepair],
      toolSettings: {
        book_repair: {
          title: '预约维修',
          card: {
            title: '预约{appliance}维修',
            description: '序列号 {serialNumber}，{address.city}{address.street}，{nowhere}',
            fields: [
              { label: '城市', value: '{address.city}' },
              { label: '备注', value: '{note}' },
              { label: '服务', value: '上门' },
            ],
          },
        },
      },
    });
    const bookTool = byName(agent.tools, 'book_repair');
    expect(bookTool.title).toBe('预约维修');
    expect(
      await bookTool.confirm?.(
        { serialNumber: 'SN1', appliance: '洗衣机', address: { city: '杭州', street: '文三路' } },
        context,
      ),
    ).toEqual({
      title: '预约洗衣机维修',
      description: '序列号 SN1，杭州文三路，',
      details: [
        { label: '城市', value: '杭州' },
        { label: '服务', value: '上门' },
      ],
    });
  });

  it('a card with only a title keeps the default rows; a new title reaches the default card', async () => {
    const agent = await resolved({
      tools: [bookRepair, { ...bookRepair, name: 'rebook' }],
      toolSettings: { book_repair: { card: { title: '确认预约' } }, rebook: { title: '改约' } },
    });
    const args = { serialNumber: 'SN1', appliance: '冰箱' };
    expect(await byName(agent.tools, 'book_repair').confirm?.(args, context)).toMatchObject({
      title: '确认预约',
      description: '为用户预约上门维修。',
      details: [
        { label: '序列号', value: 'SN1' },
        { label: '电器', value: '冰箱' },
      ],
    });
    expect((await byName(agent.tools, 'rebook').confirm?.(args, context))?.title).toBe('改约');
  });

  it('needsApproval in the settings overrides the tool’s own', async () => {
    const agent = await resolved({
      tools: [
        { ...bookRepair, needsApproval: (input: { serialNumber: string }) => input.serialNumber !== '' },
        tool({ ...bookRepair, name: 'look', readOnly: true }),
      ],
      toolSettings: { book_repair: { needsApproval: false }, look: { needsApproval: true } },
    });
    expect(byName(agent.tools, 'book_repair')).toMatchObject({ effect: 'read' });
    expect(byName(agent.tools, 'book_repair').needsApproval).toBeUndefined();
    expect(byName(agent.tools, 'look').effect).toBe('write');
    expect(
      (await byName(agent.tools, 'look').confirm?.({ serialNumber: 'S', appliance: 'A' }, context))?.title,
    ).toBe('预约上门维修');
  });

  it('skills unlock the tools they list, their settings’ and their own requiresSkill', async () => {
    const agent = await resolved({
      tools: [
        bookRepair,
        { ...bookRepair, name: 'rebook', requiresSkill: 'repair' },
        { ...bookRepair, name: 'cancel' },
      ],
      skills: [
        {
          name: 'repair',
          title: '报修手册',
          description: 'How to book',
          instructions: '先问序列号。',
          tools: ['book_repair'],
        },
        { name: 'cancel', description: 'How to cancel', instructions: '…' },
      ],
      toolSettings: { cancel: { requiresSkill: 'cancel' } },
    });
    expect(agent.tools.map((item) => [item.name, item.requiresSkill])).toEqual([
      ['book_repair', 'repair'],
      ['rebook', 'repair'],
      ['cancel', 'cancel'],
    ]);
    expect(agent.skills).toEqual([
      {
        name: 'repair',
        title: '报修手册',
        description: 'How to book',
        body: '先问序列号。',
        unlocksTools: ['book_repair', 'rebook'],
      },
      { name: 'cancel', title: 'cancel', description: 'How to cancel', body: '…', unlocksTools: ['cancel'] },
    ]);
  });
});

describe('resolveAgent: the rest of the agent', () => {
  it('adds search_knowledge only when the agent has knowledge and the knowledge is given', async () => {
    const withBoth = await resolved({ knowledge: { dirs: ['k'] } }, { knowledge });
    expect(withBoth.tools.map((item) => item.name)).toEqual(['search_knowledge']);
    expect(byName(withBoth.tools, 'search_knowledge')).toMatchObject({ title: '知识检索', effect: 'read' });
    expect((await resolved({ knowledge: { dirs: ['k'] } })).tools).toEqual([]);
    expect((await resolved({}, { knowledge })).tools).toEqual([]);
    const english = await resolved(
      { language: 'en', knowledge: { dirs: ['k'], description: 'Search the repair manuals' } },
      { knowledge },
    );
    expect(byName(english.tools, 'search_knowledge').title).toBe('Knowledge search');
    expect(byName(english.tools, 'search_knowledge').description).toMatch(
      /^Search the repair manuals\. Returns/,
    );
  });

  it('picks the model, messages by language with overrides, the server’s policies before the agent’s', async () => {
    const own = new ScriptedChatModel([], { name: 'own' });
    const serverPolicy: ToolPolicy = { name: 'server', check: () => ({ action: 'allow' }) };
    const agentPolicy: ToolPolicy = { name: 'agent', check: () => ({ action: 'allow' }) };
    const agent = await resolved(
      {
        model: own,
        language: 'en',
        messages: { toolRejected: 'Not booked.' },
        policies: [agentPolicy],
        maxSteps: 4,
      },
      { policies: [serverPolicy] },
    );
    expect(agent).toMatchObject({
      id: 'homefix',
      name: 'HomeFix',
      model: own,
      maxSteps: 4,
      instructions: base.instructions,
    });
    expect(agent.messages).toEqual({ ...RUN_MESSAGES.en, toolRejected: 'Not booked.' });
    expect(agent.policies?.map((policy) => policy.name)).toEqual(['server', 'agent']);
    const plain = await resolved({});
    expect(plain.model).toBe(model);
    expect(plain.messages).toEqual(RUN_MESSAGES['zh-CN']);
    expect(plain.policies).toBeUndefined();
  });

  it('validates a JSON Schema tool’s input and shows the model the schema as written', async () => {
    const schema = {
      type: 'object' as const,
      properties: { part: { type: 'string', pattern: '^P-\\d+$' } },
      required: ['part'],
    };
    const agent = await resolved({
      tools: [tool({ name: 'order_part', description: 'Order', inputSchema: schema, execute: () => 'ok' })],
    });
    const order = byName(agent.tools, 'order_part');
    expect(order.inputSchema).toEqual(schema);
    expect(order.parameters.safeParse({ part: 'P-1' }).success).toBe(true);
    expect(order.parameters.safeParse({ part: 'X' }).success).toBe(false);
    expect(order.parameters.safeParse({}).success).toBe(false);
  });

  it('the revision changes when a schema, an effect, the prompt or a skill changes, and not otherwise', async () => {
    const revision = async (config: Partial<AgentConfig>) => (await resolved(config)).revision;
    const skills = [{ name: 'repair', description: 'd', instructions: 'read me', tools: ['book_repair'] }];
    const first = await revision({ tools: [bookRepair], skills });
    expect(first).toMatch(/^[\da-f]{16}$/);
    // Same definition, new objects; a new title, description or execute do not change what a call means.
    expect(
      await revision({ tools: [{ ...bookRepair, title: 'Other', execute: () => 'x' }], skills: [...skills] }),
    ).toBe(first);
    const changed = [
      await revision({
        tools: [{ ...bookRepair, inputSchema: repairInput.extend({ date: z.string() }) }],
        skills,
      }),
      await revision({ tools: [{ ...bookRepair, needsApproval: false }], skills }),
      await revision({ tools: [bookRepair], skills, instructions: '你是另一个助手。' }),
      await revision({
        tools: [bookRepair],
        skills: [{ name: 'repair', description: 'd', instructions: 'read me again', tools: ['book_repair'] }],
      }),
      await revision({ tools: [bookRepair] }),
    ];
    expect(new Set([first, ...changed]).size).toBe(changed.length + 1);
  });

  it('refuses what is not an agent', async () => {
    await expect(resolveAgent({ ...base } as never, { model })).rejects.toThrow(AgentDefinitionError);
  });
});
