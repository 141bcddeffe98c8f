// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} references are what mcp.json expands.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAgent } from './agent.ts';
import { AgentDefinitionError } from './agent-definition-error.ts';
import { defineAgent } from './define-agent.ts';
import { loadAgent } from './load-agent.ts';
import type { AnyAgentTool } from './tool.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A temporary agent folder with these files (path → text). */
function agentFolder(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'runstream-agent-'));
  folders.push(folder);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  return folder;
}

async function loadError(folder: string): Promise<AgentDefinitionError> {
  try {
    await loadAgent(folder);
  } catch (error) {
    if (error instanceof AgentDefinitionError) return error;
    throw error;
  }
  throw new Error('expected an AgentDefinitionError');
}

const AGENT_JSON = `{
  "id": "homefix",
  "name": "HomeFix 维修助手",
  "description": "家电报修与保修查询",
  "language": "zh-CN",
  "model": "qwen-plus",
  "maxSteps": 6,
  "ui": { "title": "HomeFix", "greeting": "你好，哪台电器出了问题？", "examples": ["洗衣机漏水", "保修多久"] },
  "knowledge": { "description": "检索家电的维修手册和保修政策。" },
  "messages": { "toolRejected": "好的，没有预约。" },
  "tools": {
    "book_repair": {
      "title": "预约上门维修",
      "card": {
        "title": "预约上门维修",
        "description": "{appliance}，序列号 {serialNumber}",
        "fields": [{ "label": "上门日期", "value": "{date}" }]
      }
    },
    "order_part": { "needsApproval": true }
  }
}
`;

const REPAIR_SKILL = `---
name: repair
title: 报修手册
description: "预约上门维修前先读：要问清的信息"
tools: [book_repair, 'check_warranty']
---

# 报修

先问清序列号。
`;

const PARTS_SKILL = `---
# Parts come from the MCP server.
name: parts
description: 订购配件
tools:
  - order_part  # the MCP server's tool
---
订购前确认型号。
`;

const BOOK_REPAIR_MODULE = `export default {
  name: 'book_repair',
  description: 'Book a repair visit for an appliance.',
  inputSchema: {
    type: 'object',
    properties: {
      serialNumber: { type: 'string', title: '序列号' },
      appliance: { type: 'string', description: '电器' },
      date: { type: 'string' },
    },
    required: ['serialNumber'],
  },
  execute: async (input) => ({ booked: input.serialNumber }),
};
`;

const WARRANTY_MODULE = `interface Input { serialNumber: string }
const lookup = (input: Input): string => (input.serialNumber.startsWith('W') ? 'in warranty' : 'expired');
export default [
  {
    name: 'check_warranty',
    description: 'Check whether an appliance is in warranty.',
    inputSchema: { type: 'object', properties: { serialNumber: { type: 'string' } } },
    readOnly: true,
    execute: (input: Input) => lookup(input),
  },
  {
    name: 'list_appliances',
    description: 'List the appliances the user registered.',
    inputSchema: { type: 'object' },
    readOnly: true,
    execute: () => [],
  },
];
`;

const COMPLETE: Record<string, string> = {
  'agent.json': AGENT_JSON,
  'instructions.md': '你是 HomeFix 的维修助手。\n',
  'knowledge/manual.md': '# 洗衣机\n\n漏水先检查进水管。\n',
  'synonyms.txt': '漏水 渗水\n',
  'skills/repair/SKILL.md': REPAIR_SKILL,
  'skills/parts/SKILL.md': PARTS_SKILL,
  'tools/book-repair.mjs': BOOK_REPAIR_MODULE,
  'tools/warranty.ts': WARRANTY_MODULE,
  'tools/helpers/format.mjs': 'export default 42;\n',
  'tools/README.md': 'not a module\n',
  'mcp.json': JSON.stringify({ mcpServers: { parts: { command: 'node', args: ['./mcp/server.mjs'] } } }),
};

describe('loadAgent', () => {
  it('loads a complete folder into the agent defineAgent would make', async () => {
    const folder = agentFolder(COMPLETE);
    const agent = await loadAgent(folder);
    expect(isAgent(agent)).toBe(true);
    expect(agent).toMatchObject({
      id: 'homefix',
      name: 'HomeFix 维修助手',
      description: '家电报修与保修查询',
      language: 'zh-CN',
      modelName: 'qwen-plus',
      maxSteps: 6,
      instructions: '你是 HomeFix 的维修助手。',
      ui: { title: 'HomeFix', greeting: '你好，哪台电器出了问题？', examples: ['洗衣机漏水', '保修多久'] },
      knowledge: {
        dirs: [join(folder, 'knowledge')],
        synonyms: join(folder, 'synonyms.txt'),
        description: '检索家电的维修手册和保修政策。',
      },
      messages: { toolRejected: '好的，没有预约。' },
      toolSettings: {
        book_repair: {
          title: '预约上门维修',
          card: {
            description: '{appliance}，序列号 {serialNumber}',
            fields: [{ label: '上门日期', value: '{date}' }],
          },
        },
        order_part: { needsApproval: true },
      },
      mcpServers: { parts: { command: 'node', args: ['./mcp/server.mjs'], cwd: folder } },
      directory: folder,
    });
    // Modules by file name; a module's list in its order; helpers in subfolders are not tools.
    expect(agent.tools.map((tool) => tool.name)).toEqual([
      'book_repair',
      'check_warranty',
      'list_appliances',
    ]);
    expect(await agent.tools[1]?.execute({ serialNumber: 'W1' }, {} as never)).toBe('in warranty');
    expect(agent.skills).toEqual([
      { name: 'parts', description: '订购配件', instructions: '订购前确认型号。', tools: ['order_part'] },
      {
        name: 'repair',
        title: '报修手册',
        description: '预约上门维修前先读：要问清的信息',
        instructions: '# 报修\n\n先问清序列号。',
        tools: ['book_repair', 'check_warranty'],
      },
    ]);
  });

  it('spreads into defineAgent to add tools in code, keeping where each part was written', async () => {
    const loaded = await loadAgent(agentFolder(COMPLETE));
    expect(isAgent({ ...loaded })).toBe(false);
    const extra = { ...(loaded.tools[0] as AnyAgentTool), name: 'rebook' };
    const agent = defineAgent({ ...loaded, tools: [...loaded.tools, extra] });
    expect(isAgent(agent)).toBe(true);
    expect(agent.tools.map((tool) => tool.name)).toContain('rebook');
    expect(agent.mcpServers).toEqual(loaded.mcpServers);
    const error = (() => {
      try {
        defineAgent({ ...loaded, mcpServers: {}, toolSettings: { ...loaded.toolSettings } });
      } catch (caught) {
        return caught;
      }
    })();
    // order_part was the MCP server's: without the server, the skill unlocking it is refused, at its line.
    expect(error).toMatchObject({ file: join(loaded.directory, 'skills', 'parts', 'SKILL.md'), line: 5 });
  });

  it('needs only agent.json and instructions.md', async () => {
    const agent = await loadAgent(
      agentFolder({ 'agent.json': '{"id": "mini", "name": "Mini"}', 'instructions.md': 'Be brief.' }),
    );
    expect(agent).toMatchObject({ id: 'mini', tools: [], skills: [], mcpServers: {} });
    expect(agent.knowledge).toBeUndefined();
  });

  it('reports an unknown key in agent.json at its line, nested or not', async () => {
    const nested = AGENT_JSON.replace(
      '"title": "预约上门维修",\n      "card"',
      '"titel": "预约上门维修",\n      "card"',
    );
    const error = await loadError(agentFolder({ ...COMPLETE, 'agent.json': nested }));
    expect(error.file).toBe(join(folders[0] as string, 'agent.json'));
    expect(error.line).toBe(13);
    expect(error.message).toMatch(
      /agent\.json:13: unknown key "titel" in "tools\.book_repair" \(known: title, /,
    );

    const top = await loadError(
      agentFolder({ ...COMPLETE, 'agent.json': AGENT_JSON.replace('"maxSteps": 6', '"maxStep": 6') }),
    );
    expect(top.line).toBe(7);
    expect(top.reason).toMatch(/^unknown key "maxStep" \(known: /);
  });

  it('reports a value of the wrong kind and invalid JSON at their lines', async () => {
    const wrong = await loadError(
      agentFolder({ ...COMPLETE, 'agent.json': AGENT_JSON.replace('"maxSteps": 6', '"maxSteps": "6"') }),
    );
    expect([wrong.line, wrong.reason]).toEqual([7, '"maxSteps" must be a positive whole number']);
    const broken = await loadError(
      agentFolder({
        ...COMPLETE,
        'agent.json': AGENT_JSON.replace('"language": "zh-CN",', '"language": "zh-CN"'),
      }),
    );
    expect(broken.line).toBe(6);
    expect(broken.reason).toMatch(/^invalid JSON: expected "," or "}"/);
    const language = await loadError(
      agentFolder({ ...COMPLETE, 'agent.json': AGENT_JSON.replace('"zh-CN"', '"de"') }),
    );
    expect([language.line, language.reason]).toEqual([
      5,
      'agent homefix: language must be one of zh-CN, en, not "de"',
    ]);
  });

  it('reports bad front matter with the SKILL.md and its line', async () => {
    const error = await loadError(
      agentFolder({
        ...COMPLETE,
        'skills/repair/SKILL.md': REPAIR_SKILL.replace('title: 报修手册', 'title: |\n  报修手册'),
      }),
    );
    expect(error.file).toBe(join(folders[0] as string, 'skills', 'repair', 'SKILL.md'));
    expect(error.line).toBe(3);
    expect(error.reason).toBe('multi-line values (| and >) are not supported: write the value on one line');
  });

  it('refuses a skill whose name is not its folder’s', async () => {
    const error = await loadError(
      agentFolder({
        ...COMPLETE,
        'skills/repairs/SKILL.md': REPAIR_SKILL,
        'skills/repair/SKILL.md': PARTS_SKILL,
      }),
    );
    expect(error.message).toMatch(
      /skills\/repair\/SKILL\.md:3: the skill's name "parts" must be its folder's name/,
    );
  });

  it('refuses a skill unlocking a tool that does not exist, at its tools line', async () => {
    const folder = agentFolder({
      ...COMPLETE,
      'mcp.json': '{"mcpServers": {}}',
      'agent.json': AGENT_JSON.replace(',\n    "order_part": { "needsApproval": true }', ''),
      'skills/parts/SKILL.md': PARTS_SKILL,
    });
    const error = await loadError(folder);
    expect(error.file).toBe(join(folder, 'skills', 'parts', 'SKILL.md'));
    expect(error.line).toBe(5);
    expect(error.reason).toBe(
      'skill parts unlocks order_part, a tool that does not exist (tools: book_repair, check_warranty, list_appliances, search_knowledge)',
    );
  });

  it('refuses settings for a tool that does not exist, at its line in agent.json', async () => {
    const error = await loadError(
      agentFolder({
        ...COMPLETE,
        'mcp.json': '{"mcpServers": {}}',
        'skills/parts/SKILL.md': PARTS_SKILL.replace(/tools:\n.*\n/, ''),
      }),
    );
    expect(error.line).toBe(20);
    expect(error.reason).toMatch(/^settings for order_part, a tool that does not exist/);
  });

  it('refuses two tools of one name, naming the second module and the first', async () => {
    const folder = agentFolder({ ...COMPLETE, 'tools/z-again.mjs': BOOK_REPAIR_MODULE });
    const error = await loadError(folder);
    expect(error.file).toBe(join(folder, 'tools', 'z-again.mjs'));
    expect(error.reason).toBe(
      `two tools are named book_repair (the other is in ${join(folder, 'tools', 'book-repair.mjs')})`,
    );
  });

  it('refuses a tools module without a tool as its default export, or with a bad one', async () => {
    const none = await loadError(agentFolder({ ...COMPLETE, 'tools/util.mjs': 'export const x = 1;\n' }));
    expect(none.reason).toMatch(/^a tools\/ module must default-export a tool made with tool\(\)/);
    const bad = await loadError(
      agentFolder({
        ...COMPLETE,
        'tools/bad.mjs': "export default { name: 'bad', description: 'x', execute() {} };\n",
      }),
    );
    expect(bad.message).toMatch(/tools\/bad\.mjs: tool bad: needs an inputSchema/);
    const broken = await loadError(agentFolder({ ...COMPLETE, 'tools/broken.mjs': 'export default {\n' }));
    expect(broken.reason).toMatch(/^the module cannot be loaded: /);
  });

  it('names the missing file of a folder that is not an agent', async () => {
    const folder = agentFolder({ 'agent.json': '{"id": "x", "name": "X"}' });
    expect((await loadError(folder)).message).toBe(
      `${join(folder, 'instructions.md')}: missing: an agent folder needs instructions.md (the system prompt)`,
    );
    expect((await loadError(join(folder, 'nope'))).reason).toMatch(/is not a folder$/);
  });

  it('refuses "knowledge" in agent.json without a knowledge/ folder', async () => {
    const { 'knowledge/manual.md': _manual, ...rest } = COMPLETE;
    const error = await loadError(agentFolder(rest));
    expect([error.line, error.reason]).toEqual([
      9,
      '"knowledge" is set, but the folder has no knowledge/ folder of documents',
    ]);
  });

  it('expands ${NAME} in mcp.json from the given environment, and names an unset one', async () => {
    const mcp =
      '{"mcpServers": {"parts": {"url": "https://parts.example/mcp", "headers": {"authorization": "Bearer ${PARTS_TOKEN}"}}}}';
    const folder = agentFolder({ ...COMPLETE, 'mcp.json': mcp });
    const agent = await loadAgent(folder, { env: { PARTS_TOKEN: 'tok' } });
    expect(agent.mcpServers.parts).toEqual({
      url: 'https://parts.example/mcp',
      headers: { authorization: 'Bearer tok' },
    });
    const error = await loadAgent(folder, { env: {} }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      file: join(folder, 'mcp.json'),
      line: 1,
      reason:
        'mcpServers.parts.headers.authorization uses ${PARTS_TOKEN}, which is not set in the environment',
    });
  });

  it('reports a bad mcp.json at the line of the server', async () => {
    const error = await loadError(
      agentFolder({
        ...COMPLETE,
        'mcp.json':
          '{\n  "mcpServers": {\n    "parts": { "command": "node" },\n    "remote": { "url": "ftp://h/mcp" }\n  }\n}\n',
      }),
    );
    expect(error.file).toBe(join(folders[0] as string, 'mcp.json'));
    expect(error.line).toBe(4);
    expect(error.reason).toBe('mcpServers.remote.url must be an http(s) URL');
  });
});
