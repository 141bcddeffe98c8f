import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../chat-model.ts';
import { skillFor, skillsIn, toolFor } from './match-action.ts';

const tool = (
  name: string,
  description: string,
  properties: Record<string, unknown> = {},
): ToolDefinition => ({
  name,
  description,
  parameters: { type: 'object', properties },
});

const REPAIR_ID = { repairId: { type: 'string', pattern: '^R-\\d+$', description: '维修单号' } };

const TOOLS = [
  tool('load_skill', 'Load a handbook.'),
  tool('search_knowledge', '检索知识库里的维修、保修和收费说明'),
  tool('query_repair', '查询维修单的状态和上门时间', REPAIR_ID),
  tool('cancel_repair', '取消维修预约', REPAIR_ID),
  tool('book_repair', '预约上门维修'),
  tool('get_weather', 'Current weather for a city'),
];

describe('toolFor', () => {
  it.each([
    ['取消维修单 R-1001', 'cancel_repair'],
    ['查询维修单 R-1001 的进度', 'query_repair'],
    ['维修单 R-1001 现在到哪了', 'query_repair'],
    ['R-1001 这个维修单', 'query_repair'],
    ['我想预约维修，洗衣机不转了', 'book_repair'],
    ["what's the weather in Paris?", 'get_weather'],
    ['use cancel_repair for R-1', 'cancel_repair'],
  ])('%s → %s', (message, name) => {
    expect(toolFor(message, TOOLS)?.tool.name).toBe(name);
  });

  it.each([['维修一般需要多久？'], ['维修单的费用怎么算？'], ['取消订单 1002'], ['你好']])(
    '%s → none (a question, or an action no tool performs)',
    (message) => {
      expect(toolFor(message, TOOLS)).toBeUndefined();
    },
  );
});

describe('skillFor', () => {
  const loadSkill: ToolDefinition = {
    name: 'load_skill',
    description:
      'Load a handbook before a task it covers; some tools appear only after it is loaded.\n' +
      'repair-changes: 取消或改约维修预约的办理流程\n' +
      'warranty: 保修申请的条件和材料',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', enum: ['repair-changes', 'warranty'] } },
      required: ['name'],
    },
  };

  it('reads the catalogue that load_skill describes', () => {
    expect(skillsIn(loadSkill)).toEqual([
      { name: 'repair-changes', description: '取消或改约维修预约的办理流程' },
      { name: 'warranty', description: '保修申请的条件和材料' },
    ]);
  });

  it.each([
    ['取消维修单 R-1001', 'repair-changes'],
    ['把维修预约改到明天', 'repair-changes'],
    ['我要申请保修', 'warranty'],
  ])('%s → %s', (message, name) => {
    expect(skillFor(message, loadSkill)?.skill.name).toBe(name);
  });

  it('matches no skill for a question that asks for no action', () => {
    expect(skillFor('保修期是多久', loadSkill)).toBeUndefined();
  });
});
