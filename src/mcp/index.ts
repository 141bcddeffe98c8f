/**
 * MCP tool sources: the servers of an `{"mcpServers": …}` configuration (stdio or Streamable HTTP),
 * their tools offered to the model as runstream tools. Node only; the server composes it.
 */

export * from './default-confirmation-card.ts';
export * from './mcp-config.ts';
export * from './mcp-connection.ts';
export * from './mcp-tool.ts';
export * from './mcp-tool-name.ts';
export * from './mcp-tool-source.ts';
