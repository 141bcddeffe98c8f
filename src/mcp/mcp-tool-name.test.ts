import { describe, expect, it } from 'vitest';
import { HOST_TOOL_NAME_PATTERN } from '../runtime/index.ts';
import { mcpToolName } from './mcp-tool-name.ts';

describe('mcpToolName', () => {
  it('is <server>__<tool>, with characters outside [A-Za-z0-9_-] replaced', () => {
    expect(mcpToolName('orders', 'cancel_order', new Set())).toBe('orders__cancel_order');
    expect(mcpToolName('fs', 'read.file/v2', new Set())).toBe('fs__read_file_v2');
  });

  it('cuts a long name to 64 characters and ends it in a hash of the pair, the same every time', () => {
    const tool = 'a_very_long_tool_name_that_goes_on_and_on_and_on_for_a_while_longer';
    const name = mcpToolName('analytics', tool, new Set());
    expect(name).toHaveLength(64);
    expect(name).toMatch(HOST_TOOL_NAME_PATTERN);
    expect(name).toMatch(/^analytics__a_very_long.*_[\da-f]{8}$/);
    expect(mcpToolName('analytics', tool, new Set())).toBe(name);
    expect(mcpToolName('analytics', `${tool}_2`, new Set())).not.toBe(name);
  });

  it('never takes a name already taken (a server tool, another server tool that sanitised alike)', () => {
    const first = mcpToolName('fs', 'read.file', new Set());
    const second = mcpToolName('fs', 'read/file', new Set([first]));
    expect(first).toBe('fs__read_file');
    expect(second).toMatch(/^fs__read_file_[\da-f]{8}$/);
    const third = mcpToolName('fs', 'read/file', new Set([first, second]));
    expect(third).not.toBe(second);
    expect(third).toMatch(HOST_TOOL_NAME_PATTERN);
  });
});
