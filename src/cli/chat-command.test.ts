import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn, toolCallTurn } from '../models/index.ts';
import type { StartedServer } from '../node/start-server.ts';
import { startTestServer, type TestServer } from '../server/test-support/start-test-server.ts';
import { type CommandResult, runCommand, runCommandProcess } from './test-support/run-command.ts';

/** `runstream chat` as a person runs it, against the real server with the offline model. */
let testServer: TestServer;
let server: StartedServer;

beforeAll(async () => {
  testServer = await startTestServer();
  server = testServer.server;
});

afterAll(() => testServer.close());

/** `runstream chat <message>`, answering its card with `answer`, in this process (or in its own with `ownProcess`). */
function chat(message: string, answer: string, url = server.url, ownProcess = false): Promise<CommandResult> {
  const argv = ['chat', message, '--url', url, '--token', 'demo-token'];
  const options = { stdin: `${answer}\n`, env: { RUNSTREAM_URL: undefined, RUNSTREAM_TOKEN: undefined } };
  return ownProcess ? runCommandProcess(argv, options) : runCommand(argv, options);
}

describe('runstream chat', () => {
  it('shows the blocks, asks at the card, and answers n by keeping the order, as a process of its own', async () => {
    const { code, stdout } = await chat(
      '我买的那块表还没发货的话，帮我取消吧，不想要了。',
      'n',
      server.url,
      true,
    );
    expect(code).toBe(0);
    expect(stdout).toContain('🔧 加载技能手册 · 运行中 · 完成');
    expect(stdout).toContain('┌ 请确认：取消订单');
    expect(stdout).toContain('[y/N]  · 已拒绝');
    expect(stdout).not.toContain('已为你取消订单');
    expect(stdout).toMatch(/\[completed\] conversation conv_/);
  });

  it('answers y by cancelling the order once', async () => {
    const { code, stdout } = await chat('我买的那块表还没发货的话，帮我取消吧，不想要了。', 'y');
    expect(code).toBe(0);
    expect(stdout).toContain('取消订单 · 待确认');
    expect(stdout).toMatch(/· 运行中 · 完成（\d+ 毫秒）/);
    expect(stdout).toContain('已为你取消订单 88235');
  });
});

describe('runstream chat with a model that reports token usage', () => {
  it('prints the run’s usage once it ends, summed across the confirmation; nothing when unknown', async () => {
    const scripted = await startTestServer({
      model: new ScriptedChatModel([
        toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' } }], {
          usage: { inputTokens: 8_000, outputTokens: 20, cachedInputTokens: 6_144 },
        }),
        toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }], {
          usage: { inputTokens: 9_000, outputTokens: 40, reasoningTokens: 16 },
        }),
        textTurn('已为你取消订单 88235。', { usage: { inputTokens: 9_500, outputTokens: 12 } }),
        textTurn('不客气。'),
      ]),
    });
    try {
      const { code, stdout } = await chat('取消 88235', 'y', scripted.server.url);
      expect(code).toBe(0);
      expect(stdout).toContain('已为你取消订单 88235');
      expect(stdout).toMatch(
        /\nToken 用量：输入 26,500（缓存命中 6,144） · 输出 72（推理 16）\n\[completed\] conversation conv_/,
      );
      const unknown = await chat('谢谢', '', scripted.server.url);
      expect(unknown.code).toBe(0);
      expect(unknown.stdout).toContain('不客气。');
      expect(unknown.stdout).not.toContain('Token 用量');
    } finally {
      await scripted.close();
    }
  });
});
