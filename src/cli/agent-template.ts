/**
 * What `runstream init` writes: a small but whole agent (a coffee subscription's service desk), every
 * part of a folder agent used once, so a team edits a working example instead of starting from a
 * blank page. `{{id}}` is the agent's id. The tools are plain objects (the shape `tool()` checks),
 * so the folder works wherever it is, before runstream is a dependency of anything.
 */
export const AGENT_TEMPLATE: Readonly<Record<string, string>> = {
  'agent.json': `${JSON.stringify(
    {
      id: '{{id}}',
      name: '豆仓咖啡客服',
      description: '咖啡豆订阅的客服：配送与暂停规则、查询和暂停订阅。',
      language: 'zh-CN',
      maxSteps: 8,
      ui: {
        title: '豆仓咖啡 · 订阅客服',
        greeting: '你好，我是豆仓咖啡的客服。可以问我配送、暂停和退款的规则，或者查询、暂停你的订阅。',
        examples: ['订阅可以暂停多久？', '查一下我的订阅 S-1001', '帮我把订阅 S-1001 暂停 2 周'],
      },
      tools: {
        pause_subscription: {
          title: '暂停订阅',
          card: {
            title: '暂停订阅',
            description: '订阅 {subscriptionId} 暂停 {weeks} 周',
            fields: [
              { label: '订阅号', value: '{subscriptionId}' },
              { label: '暂停周数', value: '{weeks}' },
            ],
          },
        },
      },
    },
    null,
    2,
  )}\n`,
  'instructions.md': `你是豆仓咖啡的订阅客服。规则：
- 回答规则类问题前先用 search_knowledge 检索，只根据检索到的条款回答，并注明出处；lowEvidence 为 true 时直说没有找到依据，建议联系人工客服。
- 暂停订阅前先用 load_skill 加载 subscription-change 手册，再用 get_subscription 查清订阅状态；暂停必须调用 pause_subscription，由用户在确认卡上确认后才会执行。
- 不编造订阅号、日期或规则。回答简洁、礼貌，使用简体中文；用户用英文提问时用英文回答。
`,
  'knowledge/subscription-policy.md': `# 豆仓咖啡订阅规则

## 一、配送

- 订阅每 2 周配送一次，每次 2 袋（每袋 250 克），周二发货。
- 全国包邮；新疆、西藏加收 10 元运费。

## 二、暂停与恢复

- 订阅可以暂停 1 到 8 周，到期自动恢复，暂停期间不扣款。
- 暂停须在下一个发货日的前一天 18:00 前申请，晚于这个时间的，本期照常发货。
- 每个订阅每年最多暂停 3 次。

## 三、取消与退款

- 随时可以取消订阅，已发货的一期不退款。
- 未发货的一期在取消后 3 个工作日内原路退回。
`,
  'skills/subscription-change/SKILL.md': `---
name: subscription-change
title: 订阅变更手册
description: 用户要暂停、恢复或调整订阅时先加载；说明能做什么，并解锁 pause_subscription。
tools: [pause_subscription]
---

# 订阅变更手册

1. 先用 \`get_subscription\` 查订阅：用户给了订阅号就按订阅号查。
2. 只有状态为「配送中」的订阅可以暂停；「已暂停」的先告诉用户恢复日期。
3. 暂停周数 1 到 8 周；用户没说周数时先问，不要猜。
4. 调用 \`pause_subscription\` 后，用户会在确认卡上确认，确认后才会执行。
`,
  'tools/get-subscription.mjs': `// A read tool: the user's subscription. The same shape as tool({ … }) from 'runstream'; a
// plain object keeps this folder working wherever it is.
import { subscriptionsOf } from './lib/subscriptions.mjs';

export default {
  name: 'get_subscription',
  title: '查询订阅',
  description: '查询当前用户的咖啡豆订阅：状态、配送周期、下一个发货日。给订阅号查这一个，不给则列出全部。',
  readOnly: true,
  inputSchema: {
    type: 'object',
    properties: {
      subscriptionId: { type: 'string', pattern: '^S-\\\\d{4}$', title: '订阅号', description: '例如 S-1001' },
    },
  },
  execute({ subscriptionId }, { userId }) {
    const all = subscriptionsOf(userId);
    if (subscriptionId === undefined) return { subscriptions: all };
    const found = all.find((subscription) => subscription.id === subscriptionId);
    if (!found) throw new Error(\`没有找到订阅 \${subscriptionId}，请核对订阅号。\`);
    return { subscriptions: [found] };
  },
};
`,
  'tools/pause-subscription.mjs': `// A write tool: it needs the user's approval on a card (agent.json labels the card's fields), and
// it stays hidden until the subscription-change skill is loaded (its SKILL.md lists it).
import { subscriptionsOf } from './lib/subscriptions.mjs';

export default {
  name: 'pause_subscription',
  description: '暂停一个配送中的订阅 1 到 8 周，到期自动恢复。调用后用户会在确认卡上确认，确认后才执行。',
  inputSchema: {
    type: 'object',
    properties: {
      subscriptionId: { type: 'string', pattern: '^S-\\\\d{4}$', title: '订阅号' },
      weeks: { type: 'integer', minimum: 1, maximum: 8, title: '暂停周数' },
    },
    required: ['subscriptionId', 'weeks'],
  },
  execute({ subscriptionId, weeks }, { userId }) {
    const subscription = subscriptionsOf(userId).find((candidate) => candidate.id === subscriptionId);
    if (!subscription) throw new Error(\`没有找到订阅 \${subscriptionId}，请核对订阅号。\`);
    if (subscription.status !== '配送中') throw new Error(\`订阅 \${subscriptionId} 当前是「\${subscription.status}」，不能暂停。\`);
    subscription.status = '已暂停';
    subscription.pausedWeeks = weeks;
    return { subscriptionId, status: '已暂停', weeks, message: \`订阅 \${subscriptionId} 已暂停 \${weeks} 周，到期自动恢复。\` };
  },
};
`,
  'tools/lib/subscriptions.mjs': `// The demo's data, kept in memory per user: replace it with a call to your own backend. Helpers of
// the tools live in a subfolder: every module directly under tools/ must export a tool.
const byUser = new Map();

export function subscriptionsOf(userId) {
  if (!byUser.has(userId))
    byUser.set(userId, [
      { id: 'S-1001', beans: '云南保山 · 中深烘', status: '配送中', every: '2 周', nextShipment: '下周二' },
      { id: 'S-1002', beans: '埃塞俄比亚 · 浅烘', status: '已暂停', every: '2 周', resumesOn: '3 周后' },
    ]);
  return byUser.get(userId);
}
`,
  'test/turns.jsonl': `[{"type":"tool-call","name":"load_skill","arguments":{"name":"subscription-change"}}]
[{"type":"tool-call","name":"pause_subscription","arguments":{"subscriptionId":"S-1001","weeks":2}}]
[{"type":"text","text":"好的，订阅 S-1001 已暂停 2 周，到期自动恢复。"}]
`,
  'test/agent.test.mjs': `// The whole run of this agent, over HTTP, with a scripted model instead of a real one (no key):
// the turns of test/turns.jsonl are what the model "says". Run: node --test <this folder>.
// RUNSTREAM_BIN points at runstream's bin/runstream.mjs when runstream is not installed here.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const folder = dirname(dirname(fileURLToPath(import.meta.url)));

test('loads the skill, shows the labelled card, pauses once approved', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'agent-test-'));
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const command = process.env.RUNSTREAM_BIN ? [process.execPath, process.env.RUNSTREAM_BIN] : ['npx', 'runstream'];
  const server = spawn(command[0], [...command.slice(1), 'serve', folder, '--port', '0', '--no-web', '--db', join(data, 'test.db')], {
    env: { ...process.env, RUNSTREAM_MODEL: \`scripted:\${join(folder, 'test', 'turns.jsonl')}\`, RUNSTREAM_DEMO_TOKEN: 'test-token' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => server.kill('SIGINT'));
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    server.stdout.on('data', (chunk) => {
      seen += chunk;
      const match = /listening on (http:\\/\\/\\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    server.once('exit', (code) => reject(new Error(\`the server exited (\${code}): \${seen}\`)));
  });
  const api = (path, body) =>
    fetch(url + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: 'Bearer test-token', 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const events = async (response) => (await response.text()).trim().split('\\n').map((line) => JSON.parse(line));

  const conversation = await (await api('/v1/conversations', {})).json();
  const first = await events(await api(\`/v1/conversations/\${conversation.id}/messages\`, { text: '帮我把订阅 S-1001 暂停 2 周' }));
  const card = first.find((event) => event.type === 'block.started' && event.kind === 'confirm');
  assert.equal(card.title, '暂停订阅');
  assert.deepEqual(card.details, [
    { label: '订阅号', value: 'S-1001' },
    { label: '暂停周数', value: '2' },
  ]);
  assert.ok(first.some((event) => event.type === 'run.paused'));

  const { runId } = first.find((event) => event.type === 'run.started');
  const second = await events(await api(\`/v1/runs/\${runId}/confirmations/\${card.toolCallId}\`, { decision: 'approve' }));
  const answer = second.filter((event) => event.type === 'block.delta').map((event) => event.text).join('');
  assert.match(answer, /已暂停 2 周/);
  assert.equal(second.find((event) => event.type === 'run.finished').status, 'completed');
});
`,
};
