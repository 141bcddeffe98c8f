import { describe, expect, it } from 'vitest';
import { loadNovaShopSkills, parseSkill } from './load-novashop-skills.ts';
import { createNovaShopTools } from './tools/create-novashop-tools.ts';

describe('loadNovaShopSkills', () => {
  const skills = loadNovaShopSkills();

  it('loads the three handbooks', () => {
    expect(skills.map((skill) => [skill.name, skill.title, skill.unlocksTools])).toEqual([
      ['order-change', '订单变更手册', ['cancel_order']],
      ['returns-and-refunds', '退货退款手册', []],
      ['shipping-and-size', '配送与尺码手册', []],
    ]);
    for (const skill of skills) {
      expect(skill.description.length).toBeGreaterThan(10);
      expect(skill.body.startsWith('# ')).toBe(true);
      expect(skill.body).not.toContain('---\nname:');
    }
  });

  it('unlocks only tools that exist and say they need it', () => {
    const tools = createNovaShopTools({
      orders: {} as never,
      knowledge: { search: async () => ({ hits: [], lowEvidence: true }) },
    });
    for (const skill of skills) {
      for (const name of skill.unlocksTools) {
        expect(tools.find((tool) => tool.name === name)?.requiresSkill).toBe(skill.name);
      }
    }
  });

  it('states the cancellation rules of order-changes.md by status', () => {
    const body = skills.find((skill) => skill.name === 'order-change')?.body ?? '';
    for (const status of ['待付款', '已支付待发货', '已发货', '已签收', '已完成', '已取消']) {
      expect(body).toContain(`| ${status}`);
    }
    expect(body).toContain('query_order');
    expect(body).toContain('cancel_order');
  });
});

describe('parseSkill', () => {
  it('reads the flat front matter: quotes, lists in brackets, comments, CRLF', () => {
    const skill = parseSkill(
      '---\r\nname: a-skill\r\n# a comment\r\ntitle: "甲"\r\ndescription: 乙\r\nunlocks: [x, "y"]\r\n---\r\n\r\n# Body\r\n',
    );
    expect(skill).toEqual({
      name: 'a-skill',
      title: '甲',
      description: '乙',
      body: '# Body',
      unlocksTools: ['x', 'y'],
    });
  });

  it.each([
    ['name: a\n---\n', 'starts with a --- front matter line'],
    ['---\nname: a\n', 'no closing ---'],
    ['---\nname: a\ntitle: t\n---\n', 'needs "description"'],
    ['---\nname: A b\ntitle: t\ndescription: d\n---\n', 'must be kebab-case'],
    ['---\nname: a\nname: b\n---\n', 'appears twice'],
    ['---\njust text\n---\n', 'line 2 is not "key: value"'],
  ])('refuses %j', (source, message) => {
    expect(() => parseSkill(source, 'bad.md')).toThrow(message);
  });
});
