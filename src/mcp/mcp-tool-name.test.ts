import { describe, expect, it } from 'vitest';
import { HOST_TOOL_NAME_PATTERN } from '../runtime/index.ts';
import { mcpToolNames, qualifiedMcpToolName } from './mcp-tool-name.ts';

describe('mcpToolNames', () => {
  it('keeps each tool’s own name when nothing collides, characters outside [A-Za-z0-9_-] replaced', () => {
    expect(
      mcpToolNames(
        [
          { server: 'orders', tools: ['cancel_order', 'get_order'] },
          { server: 'fs', tools: ['read.file/v2'] },
        ],
        ['load_skill'],
      ),
    ).toEqual([['cancel_order', 'get_order'], ['read_file_v2']]);
  });

  it('calls every tool of a name two servers offer <server>__<tool>, whatever their order', () => {
    const listings = [
      { server: 'orders', tools: ['list_orders', 'cancel_order'] },
      { server: 'remote', tools: ['cancel_order', 'refund'] },
    ];
    expect(mcpToolNames(listings, [])).toEqual([
      ['list_orders', 'orders__cancel_order'],
      ['remote__cancel_order', 'refund'],
    ]);
    expect(mcpToolNames([...listings].reverse(), [])).toEqual([
      ['remote__cancel_order', 'refund'],
      ['list_orders', 'orders__cancel_order'],
    ]);
  });

  it('qualifies a tool whose name is reserved (the agent’s own tool, load_skill)', () => {
    expect(
      mcpToolNames(
        [{ server: 'kb', tools: ['search_knowledge', 'load_skill', 'lookup'] }],
        ['search_knowledge', 'load_skill'],
      ),
    ).toEqual([['kb__search_knowledge', 'kb__load_skill', 'lookup']]);
  });

  it('two tools of one server that sanitise alike get distinct names, the same every time', () => {
    const listings = [{ server: 'fs', tools: ['read.file', 'read/file'] }];
    const [names] = mcpToolNames(listings, []);
    expect(names?.[0]).toBe('fs__read_file');
    expect(names?.[1]).toMatch(/^fs__read_file_[\da-f]{8}$/);
    expect(mcpToolNames(listings, [])).toEqual([names]);
  });

  it('never gives a qualified name that a kept name already has', () => {
    const [first, second] = mcpToolNames(
      [
        { server: 'a', tools: ['x'] },
        { server: 'b', tools: ['x', 'a__x'] },
      ],
      [],
    );
    expect(second?.[1]).toBe('a__x');
    expect(first?.[0]).toMatch(/^a__x_[\da-f]{8}$/);
    expect(second?.[0]).toBe('b__x');
  });

  it('qualifies a tool name over 64 characters, cut to 64 and ending in a hash', () => {
    const tool = `t${'o'.repeat(70)}`;
    const [[name] = []] = mcpToolNames([{ server: 'analytics', tools: [tool] }], []);
    expect(name).toHaveLength(64);
    expect(name).toMatch(HOST_TOOL_NAME_PATTERN);
    expect(name).toMatch(/^analytics__too.*_[\da-f]{8}$/);
  });
});

describe('qualifiedMcpToolName', () => {
  it('is <server>__<tool>, with characters outside [A-Za-z0-9_-] replaced', () => {
    expect(qualifiedMcpToolName('orders', 'cancel_order', new Set())).toBe('orders__cancel_order');
    expect(qualifiedMcpToolName('fs', 'read.file/v2', new Set())).toBe('fs__read_file_v2');
  });

  it('cuts a long name to 64 characters and ends it in a hash of the pair, the same every time', () => {
    const tool = 'a_very_long_tool_name_that_goes_on_and_on_and_on_for_a_while_longer';
    const name = qualifiedMcpToolName('analytics', tool, new Set());
    expect(name).toHaveLength(64);
    expect(name).toMatch(HOST_TOOL_NAME_PATTERN);
    expect(name).toMatch(/^analytics__a_very_long.*_[\da-f]{8}$/);
    expect(qualifiedMcpToolName('analytics', tool, new Set())).toBe(name);
    expect(qualifiedMcpToolName('analytics', `${tool}_2`, new Set())).not.toBe(name);
  });

  it('never takes a name already taken', () => {
    const first = qualifiedMcpToolName('fs', 'read.file', new Set());
    const second = qualifiedMcpToolName('fs', 'read/file', new Set([first]));
    expect(first).toBe('fs__read_file');
    expect(second).toMatch(/^fs__read_file_[\da-f]{8}$/);
    const third = qualifiedMcpToolName('fs', 'read/file', new Set([first, second]));
    expect(third).not.toBe(second);
    expect(third).toMatch(HOST_TOOL_NAME_PATTERN);
  });
});
