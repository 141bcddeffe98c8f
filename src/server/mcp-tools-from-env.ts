import { McpConfigError, type McpToolSource, mcpConfigFromEnv, openMcpTools } from '../mcp/index.ts';
import { StartupError } from './startup-error.ts';

/**
 * The tools of the MCP servers configured by `RUNSTREAM_MCP_CONFIG` or `RUNSTREAM_MCP_SERVERS`
 * (see docs/integrations/mcp.md), connected; undefined when neither is set. A malformed
 * configuration or a server unreachable at start is a `StartupError`.
 */
export async function mcpToolsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  log: (line: Record<string, unknown>) => void,
  reservedNames: Iterable<string>,
): Promise<McpToolSource | undefined> {
  try {
    const config = mcpConfigFromEnv(env);
    if (config === undefined || config.size === 0) return undefined;
    return await openMcpTools(config, { log, reservedNames });
  } catch (error) {
    if (error instanceof McpConfigError) throw new StartupError(error.message);
    throw error;
  }
}
