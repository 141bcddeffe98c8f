// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} references are what the configuration format expands.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeMcpServer, McpConfigError, mcpConfigFromEnv, parseMcpConfig } from './mcp-config.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function configFile(text: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-mcp-config-'));
  directories.push(directory);
  const path = join(directory, 'mcp.json');
  writeFileSync(path, text);
  return path;
}

function errorOf(run: () => unknown): McpConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof McpConfigError) return error;
    throw error;
  }
  throw new Error('expected an McpConfigError');
}

describe('mcpConfigFromEnv', () => {
  it('is undefined when neither variable is set', () => {
    expect(mcpConfigFromEnv({})).toBeUndefined();
    expect(mcpConfigFromEnv({ RUNSTREAM_MCP_CONFIG: ' ', RUNSTREAM_MCP_SERVERS: '' })).toBeUndefined();
  });

  it('reads the common mcpServers shape from a file, stdio and Streamable HTTP, in order', () => {
    const path = configFile(
      JSON.stringify({
        mcpServers: {
          orders: { command: 'node', args: ['server.js'], env: { LEVEL: 'debug' }, cwd: '/srv' },
          remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'x-team': 'a' } },
          strict: { command: 'uvx', alwaysConfirm: true, timeoutMs: 5000 },
        },
      }),
    );
    const servers = mcpConfigFromEnv({ RUNSTREAM_MCP_CONFIG: path });
    expect([...(servers ?? new Map())]).toEqual([
      ['orders', { command: 'node', args: ['server.js'], env: { LEVEL: 'debug' }, cwd: '/srv' }],
      ['remote', { type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'x-team': 'a' } }],
      ['strict', { command: 'uvx', alwaysConfirm: true, timeoutMs: 5000 }],
    ]);
  });

  it('reads inline JSON from RUNSTREAM_MCP_SERVERS and expands ${NAME} from the environment', () => {
    const servers = mcpConfigFromEnv({
      RUNSTREAM_MCP_SERVERS: JSON.stringify({
        mcpServers: {
          remote: {
            url: 'http://127.0.0.1:${MCP_PORT}/mcp',
            headers: { authorization: 'Bearer ${MCP_TOKEN}' },
          },
          local: { command: 'node', env: { API_KEY: '${MCP_TOKEN}' } },
        },
      }),
      MCP_PORT: '9100',
      MCP_TOKEN: 'sk-secret',
    });
    expect(servers?.get('remote')).toEqual({
      url: 'http://127.0.0.1:9100/mcp',
      headers: { authorization: 'Bearer sk-secret' },
    });
    expect(servers?.get('local')).toEqual({ command: 'node', env: { API_KEY: 'sk-secret' } });
  });

  it('refuses both variables at once, an unreadable file and text that is not JSON', () => {
    expect(
      errorOf(() => mcpConfigFromEnv({ RUNSTREAM_MCP_CONFIG: 'a', RUNSTREAM_MCP_SERVERS: '{}' })).message,
    ).toBe('set RUNSTREAM_MCP_CONFIG or RUNSTREAM_MCP_SERVERS, not both');
    expect(errorOf(() => mcpConfigFromEnv({ RUNSTREAM_MCP_CONFIG: '/nonexistent/mcp.json' })).message).toBe(
      'RUNSTREAM_MCP_CONFIG (/nonexistent/mcp.json) cannot be read: ENOENT',
    );
    expect(errorOf(() => mcpConfigFromEnv({ RUNSTREAM_MCP_SERVERS: '{mcpServers' })).message).toMatch(
      /^RUNSTREAM_MCP_SERVERS is not valid JSON: /,
    );
  });

  it.each([
    ['no mcpServers', {}, 'mcpServers: mcpServers must be an object of servers by name'],
    ['an unknown top-level field', { mcpServers: {}, extra: 1 }, 'Unrecognized key'],
    [
      'a server name outside the tool-name alphabet',
      { mcpServers: { 'my server': { command: 'x' } } },
      'a server name has 1 to 32',
    ],
    [
      'neither command nor url',
      { mcpServers: { a: { args: [] } } },
      'mcpServers.a: each server has either "command"',
    ],
    ['both command and url', { mcpServers: { a: { command: 'x', url: 'http://h/mcp' } } }, 'mcpServers.a:'],
    ['an empty command', { mcpServers: { a: { command: '' } } }, 'mcpServers.a'],
    ['args that are not strings', { mcpServers: { a: { command: 'x', args: [1] } } }, 'mcpServers.a'],
    ['the SSE transport', { mcpServers: { a: { type: 'sse', url: 'http://h/sse' } } }, 'mcpServers.a'],
    ['a timeout of zero', { mcpServers: { a: { command: 'x', timeoutMs: 0 } } }, 'mcpServers.a'],
  ])('refuses %s, naming where', (_case, json, expected) => {
    const error = errorOf(() => parseMcpConfig(JSON.stringify(json), 'RUNSTREAM_MCP_SERVERS'));
    expect(error.message).toMatch(/^RUNSTREAM_MCP_SERVERS is not a valid MCP configuration/);
    expect(error.message).toContain(expected);
  });

  it('refuses a URL that is not http(s) and an unset ${NAME}, without showing values', () => {
    expect(errorOf(() => parseMcpConfig('{"mcpServers":{"a":{"url":"ftp://h/mcp"}}}', 'S')).message).toBe(
      'S: mcpServers.a.url must be an http(s) URL',
    );
    const unset = errorOf(() =>
      parseMcpConfig(
        '{"mcpServers":{"a":{"url":"http://h/mcp","headers":{"authorization":"Bearer ${TOKEN}"}}}}',
        'S',
        {},
      ),
    );
    expect(unset.message).toBe(
      'S: mcpServers.a.headers.authorization uses ${TOKEN}, which is not set in the environment',
    );
  });

  it('reads ${NAME:-fallback} as the fallback when NAME is not set, and as NAME when it is', () => {
    const config =
      '{"mcpServers":{"a":{"command":"node","env":{"DATA":"${DATA:-}","MODE":"${MODE:-fast}"}}}}';
    expect(parseMcpConfig(config, 'S', {}).get('a')).toMatchObject({ env: { DATA: '', MODE: 'fast' } });
    expect(parseMcpConfig(config, 'S', { DATA: '/srv', MODE: 'slow' }).get('a')).toMatchObject({
      env: { DATA: '/srv', MODE: 'slow' },
    });
  });

  it('never puts a header or env value in an error', () => {
    const error = errorOf(() =>
      parseMcpConfig(
        JSON.stringify({
          mcpServers: { a: { url: 'http://h/mcp', headers: { authorization: 42 }, env: { K: 'sk-live-1' } } },
        }),
        'S',
      ),
    );
    expect(error.message).not.toContain('sk-live-1');
    expect(error.message).not.toContain('42');
  });
});

describe('describeMcpServer', () => {
  it('shows the transport and where, never env, headers, credentials or queries', () => {
    expect(describeMcpServer({ command: 'node', args: ['--token', 'x'], env: { KEY: 'secret' } })).toEqual({
      transport: 'stdio',
      command: 'node',
    });
    expect(
      describeMcpServer({
        url: 'https://user:pw@mcp.example.com/mcp?key=secret',
        headers: { authorization: 'Bearer s' },
      }),
    ).toEqual({ transport: 'streamable-http', url: 'https://mcp.example.com/mcp' });
  });
});
