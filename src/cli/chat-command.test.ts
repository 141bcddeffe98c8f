import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedServer } from '../server/index.ts';
import { startTestServer, type TestServer } from '../server/test-support/start-test-server.ts';

/** `runstream chat` as a person runs it, against the real server with the offline model. */
const BIN = new URL('../../bin/runstream.mjs', import.meta.url).pathname;
let testServer: TestServer;
let server: StartedServer;

beforeAll(async () => {
  testServer = await startTestServer();
  server = testServer.server;
});

afterAll(() => testServer.close());

function chat(message: string, answer: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [BIN, 'chat', message, '--url', server.url, '--token', 'demo-token'],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stdin.end(`${answer}\n`);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe('runstream chat', () => {
  it('shows the blocks, asks at the card, and answers n by keeping the order', async () => {
    const { code, stdout } = await chat('我买的那块表还没发货的话，帮我取消吧，不想要了。', 'n');
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
