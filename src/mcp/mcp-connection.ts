import type { Readable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { describeMcpServer, isStdioServer, type McpServerConfig } from './mcp-config.ts';
import { loadMcpSdk, type McpSdk, mcpSdkIfLoaded } from './mcp-sdk.ts';

export type McpLog = (line: Record<string, unknown>) => void;

/** A tool as an MCP server lists it (`tools/list`). */
export type McpToolDefinition = Tool;

/** How long connecting (spawn or HTTP, then `initialize` and `tools/list`) may take. */
const CONNECT_TIMEOUT_MS = 20_000;
/** The most tool pages (`nextCursor`) read from one server: a guard against a cursor that never ends. */
const MAX_TOOL_PAGES = 100;

export interface McpCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Goes into the request's `params._meta` (the run's owner, its trace). */
  meta: Record<string, unknown>;
}

/** A live client and the signal that fires when its connection is lost. */
interface Session {
  client: Client;
  lost: AbortController;
}

/** The connection went away while a call was in flight: whether the call took effect is unknown. */
export class McpConnectionLostError extends Error {
  override readonly name = 'McpConnectionLostError';
}

/** The server could not be reached for a call: the call was not sent. */
export class McpUnreachableError extends Error {
  override readonly name = 'McpUnreachableError';
}

/**
 * The connection to one configured MCP server, stdio (a child process) or Streamable HTTP. It is
 * opened at start; when it drops (the process exited, the HTTP server went away) the calls in flight
 * fail and the next call opens a new one. A call is retried on a new connection only when the server
 * said it no longer knows the session (HTTP 404): the request never ran. Any other failure is not
 * retried, since whether a write took effect on the old connection is unknown.
 */
export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly #log: McpLog;
  #session: Session | undefined;
  #connecting: Promise<Session> | undefined;
  #closed = false;
  /** Set by `tools/list` at the last connect. */
  #tools: McpToolDefinition[] = [];

  constructor(name: string, config: McpServerConfig, log: McpLog) {
    this.name = name;
    this.config = config;
    this.#log = log;
  }

  /** Connect and list the server's tools; throws (with the transport's reason) when it cannot. */
  async start(): Promise<readonly McpToolDefinition[]> {
    await this.#sessionOrConnect();
    return this.#tools;
  }

  async callTool(name: string, args: unknown, options: McpCallOptions): Promise<CallToolResult> {
    try {
      return await this.#callOnce(name, args, options);
    } catch (error) {
      const sdk = mcpSdkIfLoaded();
      if (!(sdk !== undefined && error instanceof sdk.StreamableHTTPError && error.code === 404)) throw error;
      // The server restarted or expired the session: it never saw this request, so a new
      // session may send it.
      return this.#callOnce(name, args, options);
    }
  }

  async #callOnce(name: string, args: unknown, options: McpCallOptions): Promise<CallToolResult> {
    const session = await this.#sessionOrConnect().catch((error: unknown) => {
      throw new McpUnreachableError(
        `MCP server ${this.name} cannot be reached: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    options.signal.throwIfAborted();
    try {
      // The SDK sends `notifications/cancelled` when the signal aborts (a stop, the runtime's
      // timeout, a lost connection) or its own timeout passes.
      return (await session.client.callTool(
        { name, arguments: args as Record<string, unknown>, _meta: options.meta },
        undefined,
        { signal: AbortSignal.any([options.signal, session.lost.signal]), timeout: options.timeoutMs },
      )) as CallToolResult;
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (session.lost.signal.aborted) throw session.lost.signal.reason;
      if (isConnectionFailure(error)) this.#drop(session, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const session = this.#session ?? (await this.#connecting?.catch(() => undefined));
    this.#session = undefined;
    await session?.client.close().catch(() => undefined);
  }

  #sessionOrConnect(): Promise<Session> {
    if (this.#closed) return Promise.reject(new Error(`the MCP connection ${this.name} is closed`));
    if (this.#session !== undefined) return Promise.resolve(this.#session);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<Session> {
    const sdk = await loadMcpSdk();
    const client = new sdk.Client({ name: 'runstream', version: '0.1.0' }, { capabilities: {} });
    const session: Session = { client, lost: new AbortController() };
    client.onerror = (error) => {
      // A dropped or closed session's leftovers (its aborted requests, its closing streams) are noise.
      if (session.lost.signal.aborted || this.#closed) return;
      this.#log({
        level: 'warn',
        message: 'MCP transport error',
        mcpServer: this.name,
        error: error.message,
      });
      // The SDK reports a Streamable HTTP response stream cut off mid-way here, and would leave its
      // request waiting for the timeout: the server went away, so the calls in flight fail now.
      if (error.message.startsWith('SSE stream disconnected')) this.#drop(session, error);
    };
    const transport = this.#transport(sdk);
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      this.#tools = await listAllTools(client);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.close().catch(() => undefined);
      throw new Error(`the MCP connection ${this.name} is closed`);
    }
    client.onclose = () => this.#drop(session, new Error('the connection closed'));
    this.#session = session;
    this.#log({
      level: 'info',
      message: 'MCP server connected',
      mcpServer: this.name,
      ...describeMcpServer(this.config),
      tools: this.#tools.length,
    });
    return session;
  }

  #transport(sdk: McpSdk): StdioClientTransport | StreamableHTTPClientTransport {
    const config = this.config;
    if (isStdioServer(config)) {
      const transport = new sdk.StdioClientTransport({
        command: config.command,
        ...(config.args === undefined ? {} : { args: config.args }),
        ...(config.env === undefined ? {} : { env: config.env }),
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        // Its stderr goes to our log lines, one per line, instead of mixing into ours unframed.
        stderr: 'pipe',
      });
      let partial = '';
      const stderr = transport.stderr as Readable | null;
      stderr?.setEncoding('utf8');
      stderr?.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines)
          if (line.trim() !== '')
            this.#log({
              level: 'info',
              message: 'MCP server stderr',
              mcpServer: this.name,
              line: line.slice(0, 2000),
            });
      });
      return transport;
    }
    return new sdk.StreamableHTTPClientTransport(new URL(config.url), {
      ...(config.headers === undefined ? {} : { requestInit: { headers: config.headers } }),
    });
  }

  /** Forget a session whose connection failed; its calls in flight fail, the next call reconnects. */
  #drop(session: Session, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    if (!session.lost.signal.aborted)
      session.lost.abort(
        new McpConnectionLostError(`the connection to MCP server ${this.name} was lost: ${reason}`),
      );
    if (this.#session !== session) return;
    this.#session = undefined;
    if (!this.#closed)
      this.#log({
        level: 'warn',
        message: 'MCP server connection lost; the next call reconnects',
        mcpServer: this.name,
        error: reason,
      });
    void session.client.close().catch(() => undefined);
  }
}

/**
 * A closed connection, a failed fetch, an HTTP status (a lost session is 404) or a broken pipe means
 * the connection is gone; a JSON-RPC error the server answered with (unknown tool, invalid params,
 * its own failure), a timeout or a malformed result leaves it usable.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof McpConnectionLostError) return true;
  // The SDK's own errors exist only once a connection loaded it.
  const sdk = mcpSdkIfLoaded();
  if (sdk !== undefined && error instanceof sdk.McpError)
    return error.code === sdk.ErrorCode.ConnectionClosed;
  if ((sdk !== undefined && error instanceof sdk.StreamableHTTPError) || error instanceof TypeError)
    return true;
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return error.message === 'Not connected' || (typeof code === 'string' && /^E[A-Z]+$/.test(code));
}

async function listAllTools(client: Client): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
      timeout: CONNECT_TIMEOUT_MS,
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}
