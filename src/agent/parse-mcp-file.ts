import { McpConfigError, type McpServerConfig, parseMcpConfig } from '../mcp/mcp-config.ts';
import { AgentDefinitionError, type DefinitionPlace } from './agent-definition-error.ts';
import { parseJsonWithLines } from './json-with-lines.ts';

/**
 * An agent folder's mcp.json, checked as `RUNSTREAM_MCP_CONFIG` is (`parseMcpConfig`: the servers'
 * fields, `${NAME}` expanded from the environment), its problems at their line. Records where each
 * server was written (`mcpServers`, `mcpServers.<name>`) for errors found when connecting.
 */
export function parseMcpFile(
  text: string,
  file: string,
  places: Record<string, DefinitionPlace>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, McpServerConfig> {
  // Syntax errors at their line first; the lines also place the configuration's own complaints.
  const { lines } = parseJsonWithLines(text, file);
  const placeOf = (path: string): DefinitionPlace => {
    const line = lines.get(path);
    return line === undefined ? { file } : { file, line };
  };
  places.mcpServers = { file };
  for (const path of lines.keys()) if (/^mcpServers\.[^.]+$/.test(path)) places[path] = placeOf(path);
  let servers: ReadonlyMap<string, McpServerConfig>;
  try {
    servers = parseMcpConfig(text, file, env);
  } catch (error) {
    if (!(error instanceof McpConfigError)) throw error;
    const reason = error.message.startsWith(file)
      ? error.message.slice(file.length).replace(/^:?\s*/, '')
      : error.message;
    throw new AgentDefinitionError(reason, placeOf(deepestKnownPath(reason, lines)));
  }
  return Object.fromEntries(servers);
}

/** The first `mcpServers.…` path the message names, cut back to a path the file has. */
function deepestKnownPath(message: string, lines: ReadonlyMap<string, number>): string {
  const named = /\bmcpServers(?:\.[A-Za-z0-9_-]+)*/.exec(message)?.[0];
  if (named === undefined) return '';
  const segments = named.split('.');
  while (segments.length > 0 && !lines.has(segments.join('.'))) segments.pop();
  return segments.join('.');
}
