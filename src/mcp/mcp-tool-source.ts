import { LOAD_SKILL_TOOL } from '../runtime/agent/load-skill.ts';
import type { AnyTool } from '../runtime/index.ts';
import { McpConfigError, type McpServersConfig } from './mcp-config.ts';
import { McpConnection, type McpLog } from './mcp-connection.ts';
import { mcpTool } from './mcp-tool.ts';
import { mcpToolNames } from './mcp-tool-name.ts';

/** The tools of every configured MCP server, and their connections to close on shutdown. */
export interface McpToolSource {
  tools: AnyTool[];
  /** The server each tool comes from, by the tool's name here. */
  serverOf: ReadonlyMap<string, string>;
  connections: readonly McpConnection[];
  close(): Promise<void>;
}

export interface OpenMcpToolsOptions {
  log: McpLog;
  /**
   * Names already taken (the agent's or server's own tools; `load_skill` always is): an MCP tool of
   * such a name is called `<server>__<tool>` instead, so it never shadows them.
   */
  reservedNames?: Iterable<string>;
  /** The language of the failures a person reads on a tool block (the agent's). Default zh-CN. */
  language?: 'zh-CN' | 'en';
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
  const listed = started.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
  const names = mcpToolNames(
    connections.map((connection, index) => ({
      server: connection.name,
      tools: (listed[index] ?? []).map((definition) => definition.name),
    })),
    [LOAD_SKILL_TOOL, ...(options.reservedNames ?? [])],
  );
  const tools: AnyTool[] = connections.flatMap((connection, index) =>
    (listed[index] ?? []).map((definition, position) =>
      mcpTool(
        connection,
        definition,
        names[index]?.[position] ?? definition.name,
        options.log,
        options.language,
      ),
    ),
  );
  const serverOf = new Map<string, string>();
  connections.forEach((connection, index) => {
    for (const [position, definition] of (listed[index] ?? []).entries())
      serverOf.set(names[index]?.[position] ?? definition.name, connection.name);
  });
  return { tools, serverOf, connections, close: closeAll };
}
