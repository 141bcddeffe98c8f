import { isAbsolute, resolve } from 'node:path';
import { isStdioServer, type McpServerConfig } from '../mcp/mcp-config.ts';

/**
 * A server entry with its paths made absolute against the agent's folder, so the folder works from
 * any working directory: a `command` that is a relative path (`./bin/server`) resolves against it,
 * a bare program name (`node`, `npx`) stays as it is for the PATH to find, and `cwd` (relative,
 * or absent) becomes the folder, so `"args": ["./mcp/server.mjs"]` finds the script.
 */
export function resolveMcpPaths(config: McpServerConfig, directory: string): McpServerConfig {
  if (!isStdioServer(config)) return config;
  const command =
    !isAbsolute(config.command) && /[\\/]/.test(config.command)
      ? resolve(directory, config.command)
      : config.command;
  return { ...config, command, cwd: resolve(directory, config.cwd ?? '.') };
}
