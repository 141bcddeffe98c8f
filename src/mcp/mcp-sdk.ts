/**
 * The MCP SDK, an optional peer: loaded when the first MCP server connects, so an agent without MCP
 * servers (and an app that never defines one) does not need it installed.
 */
export interface McpSdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  StreamableHTTPError: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPError;
  McpError: typeof import('@modelcontextprotocol/sdk/types.js').McpError;
  ErrorCode: typeof import('@modelcontextprotocol/sdk/types.js').ErrorCode;
}

let loaded: McpSdk | undefined;

export async function loadMcpSdk(): Promise<McpSdk> {
  if (loaded !== undefined) return loaded;
  try {
    const [client, stdio, streamableHttp, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    loaded = {
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
      StreamableHTTPError: streamableHttp.StreamableHTTPError,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
    };
    return loaded;
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      String(error).includes("'@modelcontextprotocol/sdk'");
    if (!missing) throw error;
    throw new Error(
      'MCP servers need the optional package @modelcontextprotocol/sdk: install it with `npm install @modelcontextprotocol/sdk`',
      { cause: error },
    );
  }
}

/** The SDK if a connection has loaded it: its error classes can only be met after that. */
export function mcpSdkIfLoaded(): McpSdk | undefined {
  return loaded;
}
