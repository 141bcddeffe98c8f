import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentsCommand } from './agents-command.ts';
import { initCommand } from './init-command.ts';
import { main } from './main.ts';
import { parseServeArguments } from './serve-command.ts';
import { UsageError } from './usage-error.ts';

// The commands a person types to bring an agent: init, agents check, serve (its flags).

const BIN = fileURLToPath(new URL('../../bin/runstream.mjs', import.meta.url));
const HOMEFIX = fileURLToPath(new URL('../../examples/homefix/', import.meta.url));

function collector(): { stream: Writable; text: () => string } {
  let text = '';
  return {
    stream: new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    }),
    text: () => text,
  };
}

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-cli-agents-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('runstream init', () => {
  it('writes a folder that checks clean and whose own scripted test passes over HTTP', async () => {
    const folder = join(directory, 'Bean Box');
    const out = collector();
    expect(await initCommand([folder], out.stream)).toBe(0);
    expect(JSON.parse(readFileSync(join(folder, 'agent.json'), 'utf8'))).toMatchObject({ id: 'bean-box' });

    const report = collector();
    expect(await agentsCommand(['check', folder], report.stream)).toBe(0);
    expect(report.text()).toContain('knowledge: 1 documents');
    expect(report.text()).toMatch(/subscription-change \(订阅变更手册\) unlocks pause_subscription/);
    expect(report.text()).toMatch(
      /pause_subscription \(暂停订阅\): needs approval, after subscription-change/,
    );
    expect(report.text()).toMatch(/get_subscription \(查询订阅\): runs without approval/);

    // Its own test: a real server (runstream serve) with the scripted model, the card, the approval.
    const test = spawnSync(process.execPath, ['--test', join(folder, 'test')], {
      env: { ...process.env, RUNSTREAM_BIN: BIN },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(test.stdout, test.stderr).toMatch(/# pass 1\n# fail 0/);
  }, 90_000);

  it('refuses a folder that is not empty, and an id that is not one', async () => {
    writeFileSync(join(directory, 'notes.txt'), 'mine');
    const errors = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      expect(await initCommand([directory], collector().stream)).toBe(1);
    } finally {
      process.stderr.write = errors;
    }
    expect(readFileSync(join(directory, 'notes.txt'), 'utf8')).toBe('mine');
    await expect(
      initCommand([join(directory, 'x'), '--id', 'Not An Id'], collector().stream),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(initCommand([], collector().stream)).rejects.toBeInstanceOf(UsageError);
  });
});

describe('runstream agents check', () => {
  it('prints each problem with its file and line, and exits 1', async () => {
    const folder = join(directory, 'broken');
    await initCommand([folder], collector().stream);
    writeFileSync(
      join(folder, 'agent.json'),
      '{\n  "id": "broken",\n  "name": "Broken",\n  "greeting": "hi"\n}\n',
    );
    const out = collector();
    const errors = collector();
    expect(await agentsCommand(['check', folder], out.stream, errors.stream)).toBe(1);
    expect(errors.text()).toContain(`${join(folder, 'agent.json')}:4`);
    expect(errors.text()).toContain('greeting');

    writeFileSync(join(folder, 'agent.json'), JSON.stringify({ id: 'broken', name: 'Broken' }));
    writeFileSync(
      join(folder, 'skills', 'subscription-change', 'SKILL.md'),
      '---\nname: subscription-change\ndescription: d\ntools: [pause_subscription, refund_order]\n---\n\nbody\n',
    );
    const second = collector();
    expect(await agentsCommand(['check', folder], collector().stream, second.stream)).toBe(1);
    expect(second.text()).toContain(`${join(folder, 'skills', 'subscription-change', 'SKILL.md')}:4`);
    expect(second.text()).toContain('refund_order');
  });

  it('connects the MCP servers of a folder and lists their tools with the approval each needs', async () => {
    const out = collector();
    expect(await agentsCommand(['check', HOMEFIX], out.stream)).toBe(0);
    expect(out.text()).toMatch(/query_repair \(.+\): runs without approval/);
    expect(out.text()).toMatch(/cancel_repair \(.+\): needs approval, after repair-change/);
    expect(out.text()).toContain('mcp servers: homefix (connected)');
  }, 30_000);
});

describe('runstream serve', () => {
  it('takes --port, --host and --db over PORT, HOST and RUNSTREAM_DB, and refuses what it does not know', () => {
    expect(
      parseServeArguments(['a', 'b', '--port', '9000', '--host', '0.0.0.0', '--db', 'x.db'], { PORT: '1' }),
    ).toMatchObject({
      folders: ['a', 'b'],
      env: { PORT: '9000', HOST: '0.0.0.0', RUNSTREAM_DB: 'x.db' },
      web: true,
    });
    expect(parseServeArguments([], { PORT: '1' })).toMatchObject({ folders: ['.'], env: { PORT: '1' } });
    expect(parseServeArguments(['--no-web'], {})).toMatchObject({ web: false });
    expect(parseServeArguments(['--help'], {})).toBe('help');
    expect(() => parseServeArguments(['--port', 'ninety'], {})).toThrow(UsageError);
    expect(() => parseServeArguments(['--bogus'], {})).toThrow(/Unknown option '--bogus'/);
  });

  it('listens on the --port it was given', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [BIN, 'serve', HOMEFIX, '--port', String(port), '--no-web', '--db', join(directory, 'serve.db')],
      {
        env: { ...process.env, PORT: '8787', HOMEFIX_DATA_DIR: join(directory, 'homefix') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        child.stdout.on('data', (chunk) => {
          seen += String(chunk);
          const match = /listening on (http:\/\/\S+)/.exec(seen);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${seen}`)));
      });
      expect(url).toBe(`http://127.0.0.1:${port}`);
      const agents = await (await fetch(`${url}/health`)).json();
      expect(agents).toEqual({ status: 'ok' });
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 30_000);

  it('answers --help on every command with its usage and exit 0', async () => {
    const stdout = collector();
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => stdout.stream.write(chunk)) as typeof process.stdout.write;
    try {
      for (const command of ['serve', 'init', 'agents', 'chat', 'host', 'users', 'kb', 'build-web'])
        expect(await main([command, '--help']), command).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    for (const command of ['serve', 'init', 'agents', 'chat', 'host', 'users', 'kb', 'build-web'])
      expect(stdout.text()).toContain(`runstream ${command}`);
    expect(stdout.text()).not.toContain('runstream: ');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
