import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedChatModel } from '../models/index.ts';
import { type AgentConfig, isAgent } from './agent.ts';
import { AgentDefinitionError } from './agent-definition-error.ts';
import { defineAgent } from './define-agent.ts';
import { tool } from './tool.ts';

const bookRepair = tool({
  name: 'book_repair',
  description: 'Book a repair visit.',
  inputSchema: z.object({ serialNumber: z.string() }),
  execute: () => 'booked',
});
const checkWarranty = tool({
  name: 'check_warranty',
  description: 'Check the warranty.',
  inputSchema: { type: 'object', properties: { serialNumber: { type: 'string' } } },
  readOnly: true,
  execute: () => 'in warranty',
});

const minimal: AgentConfig = { id: 'homefix', name: '家电维修助手', instructions: '你是家电维修助手。' };

function definitionError(config: unknown): AgentDefinitionError {
  try {
    defineAgent(config as AgentConfig);
  } catch (error) {
    if (error instanceof AgentDefinitionError) return error;
    throw error;
  }
  throw new Error('expected an AgentDefinitionError');
}

describe('defineAgent', () => {
  it('fills the defaults and freezes the agent, branded so a server tells it from a plain object', () => {
    const agent = defineAgent(minimal);
    expect(agent).toMatchObject({
      id: 'homefix',
      language: 'zh-CN',
      maxSteps: 10,
      tools: [],
      skills: [],
      mcpServers: {},
      toolSettings: {},
      policies: [],
      messages: {},
      ui: { title: '家电维修助手', examples: [] },
      directory: process.cwd(),
    });
    expect(isAgent(agent)).toBe(true);
    expect(isAgent({ ...minimal })).toBe(false);
    expect(Object.isFrozen(agent)).toBe(true);
    expect(Object.isFrozen(agent.tools)).toBe(true);
    expect(() => {
      (agent as { id: string }).id = 'other';
    }).toThrow(TypeError);
  });

  it('keeps a complete definition, paths resolved against its directory', () => {
    const model = new ScriptedChatModel([]);
    const agent = defineAgent({
      ...minimal,
      description: '报修、保修查询',
      language: 'en',
      model,
      tools: [bookRepair, checkWarranty],
      skills: [
        { name: 'repair', description: 'How to book a repair', instructions: '…', tools: ['book_repair'] },
      ],
      knowledge: { dirs: ['knowledge'], synonyms: 'synonyms.txt', description: 'Manuals' },
      mcpServers: { parts: { command: 'node', args: ['./mcp/server.mjs'] }, remote: { url: 'http://h/mcp' } },
      toolSettings: {
        check_warranty: {
          title: '保修查询',
          card: { fields: [{ label: '序列号', value: '{serialNumber}' }] },
        },
      },
      maxSteps: 6,
      messages: { toolRejected: 'Not done.' },
      ui: { title: 'HomeFix', greeting: 'Hi', examples: ['My washer leaks'] },
      directory: '/srv/agents/homefix',
    });
    expect(agent.model).toBe(model);
    expect(agent.tools.map((item) => item.name)).toEqual(['book_repair', 'check_warranty']);
    expect(agent.knowledge).toEqual({
      dirs: ['/srv/agents/homefix/knowledge'],
      synonyms: '/srv/agents/homefix/synonyms.txt',
      description: 'Manuals',
    });
    expect(agent.mcpServers).toEqual({
      parts: { command: 'node', args: ['./mcp/server.mjs'], cwd: '/srv/agents/homefix' },
      remote: { url: 'http://h/mcp' },
    });
    expect(agent.ui).toEqual({ title: 'HomeFix', greeting: 'Hi', examples: ['My washer leaks'] });
  });

  it('resolves a relative MCP command against the directory and leaves a program name to the PATH', () => {
    const agent = defineAgent({
      ...minimal,
      directory: 'agents/homefix',
      mcpServers: { a: { command: './bin/server', cwd: 'mcp' }, b: { command: 'npx', args: ['server'] } },
    });
    expect(agent.mcpServers.a).toEqual({
      command: resolve('agents/homefix/bin/server'),
      cwd: resolve('agents/homefix/mcp'),
    });
    expect(agent.mcpServers.b).toMatchObject({ command: 'npx', cwd: resolve('agents/homefix') });
  });

  it.each([
    ['an id with capitals', { id: 'HomeFix' }, 'the id "HomeFix" must have'],
    ['an id with a space', { id: 'home fix' }, 'must have 1 to 64 lowercase'],
    ['no name', { name: '' }, 'needs a name'],
    ['no instructions', { instructions: undefined }, 'needs instructions'],
    ['an unknown language', { language: 'fr' }, 'language must be one of zh-CN, en'],
    ['a maxSteps of zero', { maxSteps: 0 }, 'maxSteps must be a positive whole number'],
    ['a fractional maxSteps', { maxSteps: 2.5 }, 'maxSteps must be a positive whole number'],
    ['ui examples that are not strings', { ui: { examples: [1] } }, 'ui.examples must be a list of strings'],
    ['an unknown field', { instruction: 'x' }, 'unknown field "instruction"'],
    ['an unknown message key', { messages: { nope: 'x' } }, 'messages has an unknown key "nope"'],
    ['two tools of one name', { tools: [bookRepair, { ...bookRepair }] }, 'two tools are named book_repair'],
    [
      'a tool named search_knowledge next to knowledge',
      { tools: [{ ...checkWarranty, name: 'search_knowledge' }], knowledge: { dirs: ['k'] } },
      'search_knowledge is the built-in tool',
    ],
    [
      'two skills of one name',
      {
        skills: [
          { name: 'repair', description: 'a', instructions: '' },
          { name: 'repair', description: 'b', instructions: '' },
        ],
      },
      'two skills are named repair',
    ],
    [
      'a skill unlocking a tool that does not exist',
      {
        tools: [bookRepair],
        skills: [{ name: 'repair', description: 'a', instructions: '', tools: ['book'] }],
      },
      'skill repair unlocks book, a tool that does not exist (tools: book_repair)',
    ],
    [
      'a tool unlocked by two skills',
      {
        tools: [bookRepair],
        skills: [
          { name: 'a', description: 'a', instructions: '', tools: ['book_repair'] },
          { name: 'b', description: 'b', instructions: '', tools: ['book_repair'] },
        ],
      },
      'tool book_repair is unlocked by two skills, a and b',
    ],
    [
      'a tool requiring a skill that does not exist',
      { tools: [{ ...bookRepair, requiresSkill: 'repairs' }] },
      'tool book_repair requires the skill repairs, which does not exist',
    ],
    ['settings for a tool that does not exist', { toolSettings: { book: {} } }, 'settings for book, a tool'],
    [
      'a misspelt setting',
      { tools: [bookRepair], toolSettings: { book_repair: { needsAproval: false } } },
      'unknown field "needsAproval"',
    ],
    ['an MCP server with neither command nor url', { mcpServers: { a: { args: [] } } }, 'mcpServers.a'],
    ['a policy without check', { policies: [{ name: 'p' }] }, 'each policy needs a name and a check'],
  ])('refuses %s', (_case, change, expected) => {
    expect(definitionError({ ...minimal, ...(change as object) }).message).toContain(expected);
  });

  it('checks tool names only once the MCP tools are known when it has MCP servers', () => {
    const agent = defineAgent({
      ...minimal,
      mcpServers: { parts: { command: 'node' } },
      skills: [{ name: 'repair', description: 'a', instructions: '', tools: ['order_part'] }],
      toolSettings: { order_part: { needsApproval: true } },
    });
    expect(agent.skills[0]?.tools).toEqual(['order_part']);
  });

  it('lets a skill unlock search_knowledge when the agent has knowledge', () => {
    expect(() =>
      defineAgent({
        ...minimal,
        knowledge: { dirs: ['k'] },
        skills: [{ name: 'manuals', description: 'a', instructions: '', tools: ['search_knowledge'] }],
      }),
    ).not.toThrow();
  });
});
