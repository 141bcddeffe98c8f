import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_TOKEN, type TestServer } from '../server/test-support/start-test-server.ts';
import { preview } from './host-command.ts';
import {
  HOST_TOOLS,
  isoInZone,
  localTimeTool,
  MAX_FILE_BYTES,
  readFileTool,
  runHostTool,
} from './host-tools.ts';
import { type CommandResult, runCommand } from './test-support/run-command.ts';

/** `runstream host` as a person runs it, against the real server with the offline demo model. */
const BIN = new URL('../../bin/runstream.mjs', import.meta.url).pathname;
const NOTES = 'Meeting notes\n- ship the host example on Friday\n- buy oat milk\n';
let testServer: TestServer;
let directory: string;
let root: string;

beforeAll(async () => {
  testServer = await startTestServer();
  directory = mkdtempSync(join(tmpdir(), 'runstream-host-'));
  root = join(directory, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'notes.txt'), NOTES);
  writeFileSync(join(directory, 'secret.txt'), 'the secret outside the root\n');
});

afterAll(async () => {
  await testServer.close();
  rmSync(directory, { recursive: true, force: true });
});

/** `runstream host …` in this process, with none of the caller's RUNSTREAM_TOKEN or RUNSTREAM_URL. */
function host(args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  return runCommand(['host', ...args], {
    env: { RUNSTREAM_TOKEN: undefined, RUNSTREAM_URL: undefined, ...env },
  });
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `runstream host …` as a process of its own, through bin/runstream.mjs, which `onStdout` may signal. */
function hostProcess(args: string[], onStdout: (text: string, child: ChildProcess) => void): Promise<Ran> {
  return new Promise((resolve) => {
    const env = { ...process.env, RUNSTREAM_TOKEN: undefined, RUNSTREAM_URL: undefined };
    const child = spawn(process.execPath, [BIN, 'host', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      onStdout(stdout, child);
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const serverArgs = () => ['--url', testServer.server.url, '--token', TEST_TOKEN];

describe('runstream host', () => {
  it('reads the file the prompt names, submits it, and answers quoting it', async () => {
    const { code, stdout, stderr } = await host(['read notes.txt', '--root', root, ...serverArgs()]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const call = lines.indexOf('🔧 read_file {"path":"notes.txt"}');
    const result = lines.findIndex((line) => line.startsWith('↳ result read_file: Meeting notes⏎- ship'));
    const resumed = lines.findIndex((line) => line.startsWith('▶ resumed with 1 tool result'));
    const quote = lines.indexOf('- ship the host example on Friday');
    expect(lines[0]).toMatch(/^▶ response run_\w+ started$/);
    expect(stdout).toMatch(/^💭 The user wants to read notes\.txt/m);
    // start → tool call → tool result → resume → the answer from the file.
    expect(call).toBeGreaterThan(0);
    expect(result).toBeGreaterThan(call);
    expect(resumed).toBeGreaterThan(result);
    expect(quote).toBeGreaterThan(resumed);
    expect(lines.at(-2)).toMatch(/^\[completed\] response run_\w+$/);
  });

  it('tells the time, through the environment variables', async () => {
    const { code, stdout } = await host(['what time is it?', '--agent', 'novashop'], {
      RUNSTREAM_URL: testServer.server.url,
      RUNSTREAM_TOKEN: TEST_TOKEN,
    });
    expect(code).toBe(0);
    expect(stdout).toContain('🔧 local_time {}');
    expect(stdout).toMatch(
      /↳ result local_time: \{"iso":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d"/,
    );
    expect(stdout).toMatch(/local time as \d{4}-\d\d-\d\dT/);
  });

  it('runs two tools of one turn and submits both results in one request', async () => {
    const { code, stdout } = await host([
      'read notes.txt and tell me the local time',
      '--root',
      root,
      ...serverArgs(),
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('🔧 read_file {"path":"notes.txt"}\n🔧 local_time {}\n');
    expect(stdout).toContain('▶ resumed with 2 tool results');
    expect(stdout).toContain('buy oat milk');
    expect(stdout).toMatch(/\[completed\]/);
  });

  it('answers a path that leaves the root with an error result, and the response still completes', async () => {
    const { code, stdout } = await host(['read ../secret.txt', '--root', root, ...serverArgs()]);
    expect(code).toBe(0);
    expect(stdout).toContain('🔧 read_file {"path":"../secret.txt"}');
    expect(stdout).toContain('↳ error read_file: ../secret.txt is outside the folder this host shares');
    expect(stdout).toContain('Sorry, the host could not run read_file');
    expect(stdout).not.toContain('the secret outside the root');
    expect(stdout).toMatch(/\[completed\]/);
  });

  it('with --json prints one event per line, its own results included', async () => {
    const { code, stdout } = await host(['read notes.txt', '--root', root, '--json', ...serverArgs()]);
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; sequence_number?: number; output?: string });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types.indexOf('response.requires_action')).toBeLessThan(types.indexOf('host.tool_result'));
    expect(types.indexOf('host.tool_result')).toBeLessThan(types.indexOf('response.resumed'));
    expect(events.find((event) => event.type === 'host.tool_result')?.output).toBe(NOTES);
    // The numbering goes on across the two streams, without gaps.
    const numbers = events.flatMap((event) =>
      event.sequence_number === undefined ? [] : [event.sequence_number],
    );
    expect(numbers).toEqual(numbers.map((_, index) => index));
  });

  it('resumes a stream whose connection drops, with Last-Event-ID, and still completes', async () => {
    const proxy = await startDroppingProxy(testServer.server.url);
    try {
      const { code, stdout, stderr } = await host([
        'read notes.txt',
        '--root',
        root,
        '--url',
        proxy.url,
        '--token',
        TEST_TOKEN,
      ]);
      expect(stderr).toMatch(/connection lost .*; resuming in \d+ ms/);
      expect(code).toBe(0);
      const resume = proxy.requests.find((request) => request.method === 'GET');
      expect(resume?.url).toMatch(/^\/v1\/responses\/run_\w+\?stream=true$/);
      expect(Number(resume?.lastEventId)).toBeGreaterThan(0);
      // Nothing is printed twice: one tool call, one answer.
      expect(stdout.match(/🔧 read_file/g)).toHaveLength(1);
      expect(stdout.match(/▶ response run_\w+ started/g)).toHaveLength(1);
      expect(stdout).toContain('- ship the host example on Friday');
      expect(stdout).toMatch(/\[completed\]/);
    } finally {
      await proxy.close();
    }
  });

  // The one run as a process of its own: the command a person types starts, streams, and answers Ctrl-C.
  it('cancels the response on Ctrl-C and exits 1, as a process of its own', async () => {
    const slow = await startTestServer({ env: { RUNSTREAM_DEMO_DELAY_MS: '40' } });
    try {
      let interrupted = false;
      const { code, stdout, stderr } = await hostProcess(
        ['read notes.txt', '--root', root, '--url', slow.server.url, '--token', TEST_TOKEN],
        (text, child) => {
          if (!interrupted && text.includes('💭')) {
            interrupted = true;
            child.kill('SIGINT');
          }
        },
      );
      expect(interrupted).toBe(true);
      expect(stdout).toMatch(/\[cancelled · user_stop\] response run_\w+/);
      expect(stdout).not.toContain('↳ result');
      expect(stderr).toContain('cancelling');
      expect(code).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it("prints the server's message for an HTTP error, or that no server answers, and exits 1", async () => {
    const { code, stderr } = await host([
      'what time is it?',
      '--url',
      testServer.server.url,
      '--token',
      'wrong-token',
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^runstream: .+\(HTTP 401\)\n$/);
    // An agent the server does not run: the server's own words, naming the ones it does.
    const unknown = await host(['what time is it?', ...serverArgs(), '--agent', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/nope[\s\S]*novashop[\s\S]*\(HTTP 400\)/);
    const nobody = await host(['what time is it?', '--url', 'http://127.0.0.1:1', '--token', TEST_TOKEN]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(
      /^runstream: http:\/\/127\.0\.0\.1:1 did not start a response: fetch failed/,
    );
  });

  it('is a usage error (exit 2) without a token, a prompt, or with a root that is not a folder', async () => {
    const [noToken, noPrompt, badRoot] = await Promise.all([
      host(['what time is it?', '--url', testServer.server.url]),
      host(serverArgs()),
      host(['hi', '--root', join(root, 'notes.txt'), ...serverArgs()]),
    ]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('host needs a token: --token, or RUNSTREAM_TOKEN');
    expect(noToken.stderr).toContain('runstream host "<prompt>"');
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain('host needs a prompt');
    expect(badRoot.code).toBe(2);
    expect(badRoot.stderr).toContain('is not a directory');
  });
});

describe('read_file', () => {
  it('reads a UTF-8 file inside the root, also through a subfolder or an absolute path inside', async () => {
    writeFileSync(join(root, 'sub', '中文.md'), '你好，世界\n');
    expect(await readFileTool({ path: 'notes.txt' }, { root })).toEqual({ output: NOTES });
    expect(await readFileTool({ path: 'sub/../sub/中文.md' }, { root })).toEqual({ output: '你好，世界\n' });
    expect(await readFileTool({ path: join(root, 'notes.txt') }, { root })).toEqual({ output: NOTES });
  });

  it('refuses paths that leave the root: .., absolute paths, symlinks pointing out', async () => {
    symlinkSync(join(directory, 'secret.txt'), join(root, 'escape.txt'));
    symlinkSync(directory, join(root, 'up'));
    symlinkSync(join(root, 'notes.txt'), join(root, 'sub', 'alias.txt'));
    const refused = async (path: string) => {
      const result = await readFileTool({ path }, { root });
      expect(result, path).toHaveProperty('error');
      expect('error' in result && result.error, path).toMatch(/outside the folder this host shares/);
    };
    await refused('../secret.txt');
    await refused('sub/../../secret.txt');
    await refused(join(directory, 'secret.txt'));
    await refused('/etc/passwd');
    await refused('escape.txt');
    await refused('up/secret.txt');
    // A symlink that stays inside is fine.
    expect(await readFileTool({ path: 'sub/alias.txt' }, { root })).toEqual({ output: NOTES });
  });

  it('refuses files over 256 KiB, bytes that are not UTF-8, folders and missing files', async () => {
    writeFileSync(join(root, 'limit.txt'), 'a'.repeat(MAX_FILE_BYTES));
    writeFileSync(join(root, 'big.txt'), 'a'.repeat(MAX_FILE_BYTES + 1));
    writeFileSync(join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const limit = await readFileTool({ path: 'limit.txt' }, { root });
    expect('output' in limit && typeof limit.output === 'string' && limit.output.length).toBe(MAX_FILE_BYTES);
    expect(await readFileTool({ path: 'big.txt' }, { root })).toEqual({
      error: 'big.txt is 262145 bytes, over the 256 KiB limit',
    });
    expect(await readFileTool({ path: 'latin1.txt' }, { root })).toEqual({
      error: 'latin1.txt is not UTF-8 text',
    });
    expect(await readFileTool({ path: 'sub' }, { root })).toEqual({
      error: 'sub is a directory, not a file',
    });
    expect(await readFileTool({ path: 'nope.txt' }, { root })).toEqual({ error: 'nope.txt: no such file' });
    expect(await readFileTool({ path: '' }, { root })).toEqual({ error: 'read_file needs a path' });
    expect(await readFileTool({ path: 3 }, { root })).toEqual({ error: 'read_file needs a path' });
  });
});

describe('local_time', () => {
  const now = new Date('2026-03-01T12:00:00.250Z');

  it('gives the time in an IANA zone as {iso, local, timezone}', () => {
    expect(localTimeTool({ timezone: 'Asia/Shanghai' }, now)).toEqual({
      output: {
        iso: '2026-03-01T20:00:00.250+08:00',
        local: expect.stringContaining('Sunday, March 1, 2026 at 8:00:00 PM'),
        timezone: 'Asia/Shanghai',
      },
    });
    expect(isoInZone(now, 'UTC')).toBe('2026-03-01T12:00:00.250+00:00');
    expect(isoInZone(now, 'America/St_Johns')).toBe('2026-03-01T08:30:00.250-03:30');
    expect(isoInZone(new Date('2026-03-01T00:30:00Z'), 'Europe/Paris')).toBe('2026-03-01T01:30:00.000+01:00');
  });

  it("uses the host's own zone without one, and answers an unknown zone with an error result", () => {
    const own = localTimeTool({}, now);
    expect(own).toEqual({
      output: expect.objectContaining({ timezone: Intl.DateTimeFormat().resolvedOptions().timeZone }),
    });
    expect(localTimeTool({ timezone: 'Mars/Olympus_Mons' }, now)).toEqual({
      error: 'unknown time zone "Mars/Olympus_Mons": use an IANA name such as Europe/Paris',
    });
    expect(localTimeTool({ timezone: 8 }, now)).toHaveProperty('error');
  });
});

describe('runHostTool', () => {
  it('declares the two tools with object schemas', () => {
    expect(HOST_TOOLS.map((tool) => tool.name)).toEqual(['read_file', 'local_time']);
    expect(HOST_TOOLS[0]?.parameters).toMatchObject({ required: ['path'], additionalProperties: false });
  });

  it('turns bad arguments and unknown tools into error results, never a throw', async () => {
    const context = { root, now: () => new Date('2026-03-01T12:00:00Z') };
    expect(await runHostTool('read_file', '{"path":', context)).toEqual({
      error: 'the arguments of read_file are not valid JSON',
    });
    expect(await runHostTool('read_file', '[]', context)).toHaveProperty('error');
    expect(await runHostTool('rm_rf', '{}', context)).toEqual({
      error: 'unknown tool "rm_rf": this host offers read_file and local_time',
    });
    expect(await runHostTool('read_file', '{"path":"x"}', { root: join(directory, 'gone') })).toHaveProperty(
      'error',
    );
    expect(await runHostTool('local_time', '', context)).toHaveProperty('output');
  });

  it('previews results on one line, cut when long', () => {
    expect(preview({ output: 'a\nb' })).toBe('a⏎b');
    expect(preview({ output: { iso: 'x' } })).toBe('{"iso":"x"}');
    expect(preview({ output: 'x'.repeat(500) })).toBe(`${'x'.repeat(160)}… (500 chars)`);
  });
});

/**
 * A proxy in front of the server that cuts the first streamed POST /v1/responses after a few
 * kilobytes, as a flaky network would, and records what the host asks for afterwards.
 */
async function startDroppingProxy(upstream: string): Promise<{
  url: string;
  requests: { method: string; url: string; lastEventId: string | undefined }[];
  close(): Promise<void>;
}> {
  const requests: { method: string; url: string; lastEventId: string | undefined }[] = [];
  let dropped = false;
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const lastEventId = request.headers['last-event-id'];
    requests.push({
      method: request.method ?? '',
      url: request.url ?? '',
      lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers.set(name, value);
    const upstreamResponse = await fetch(`${upstream}${request.url}`, {
      method: request.method ?? 'GET',
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const hopByHop = new Set([
      'content-length',
      'transfer-encoding',
      'connection',
      'keep-alive',
      'content-encoding',
    ]);
    response.writeHead(
      upstreamResponse.status,
      Object.fromEntries([...upstreamResponse.headers].filter(([name]) => !hopByHop.has(name))),
    );
    const cut = !dropped && request.method === 'POST' && request.url === '/v1/responses';
    if (cut) dropped = true;
    let sent = 0;
    if (upstreamResponse.body === null) {
      response.end();
      return;
    }
    const reader = upstreamResponse.body.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const chunk = next.value;
      // Each chunk reaches the host before the cut, so the cut falls mid-stream.
      await new Promise<void>((resolve) => response.write(chunk, () => resolve()));
      sent += chunk.length;
      if (cut && sent > 4_000) {
        await reader.cancel();
        response.socket?.destroy();
        return;
      }
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
