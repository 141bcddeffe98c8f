import type { AnyTool } from '../runtime/index.ts';
import { LOAD_SKILL_TOOL } from '../runtime/load-skill.ts';
import { McpConfigError, type McpServersConfig } from './mcp-config.ts';
import { McpConnection, type McpLog } from './mcp-connection.ts';
import { mcpTool } from './mcp-tool.ts';
import { mcpToolName } from './mcp-tool-name.ts';

/** The tools of every configured MCP server, and their connections to close on shutdown. */
export interface McpToolSource {
  tools: AnyTool[];
  connections: readonly McpConnection[];
  close(): Promise<void>;
}

export interface OpenMcpToolsOptions {
  log: McpLog;
  /** Names already taken (the server's own tools; `load_skill` always is): MCP tools never shadow them. */
  reservedNames?: Iterable<string>;
}

/**
 * Connect to every configured server at once and turn their tools into runstream tools. A server
 * that cannot be reached fails the whole start (`McpConfigError` naming it and why): the tool list
 * is fixed for the process's life, and a server whose tools silently go missing would only surface
 * as an agent that cannot do what it was configured to do. After the start, a lost connection
 * fails calls until the server is back (each call tries again).
 */
export async function openMcpTools(
  config: McpServersConfig,
  options: OpenMcpToolsOptions,
): Promise<McpToolSource> {
  const connections = [...config].map(([name, server]) => new McpConnection(name, server, options.log));
  const closeAll = async () => {
    await Promise.all(connections.map((connection) => connection.close()));
  };
  const started = await Promise.allSettled(connections.map((connection) => connection.start()));
  const failures = started.flatMap((outcome, index) =>
    outcome.status === 'rejected'
      ? [
          `${connections[index]?.name}: ${outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason)}`,
        ]
      : [],
  );
  if (failures.length > 0) {
    await closeAll();
    throw new McpConfigError(`MCP server(s) could not be reached at start: ${failures.join('; ')}`);
  }
  const taken = new Set([LOAD_SKILL_TOOL, ...(options.reservedNames ?? [])]);
  const tools: AnyTool[] = [];
  started.forEach((outcome, index) => {
    const connection = connections[index] as McpConnection;
    if (outcome.status !== 'fulfilled') return;
    for (const definition of outcome.value) {
      const name = mcpToolName(connection.name, definition.name, taken);
      taken.add(name);
      tools.push(mcpTool(connection, definition, name, options.log));
    }
  });
  return { tools, connections, close: closeAll };
}
