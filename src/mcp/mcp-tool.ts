import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type AnyTool, hostToolValidator, type ToolContext, ToolError } from '../runtime/index.ts';
import { defaultConfirmationCard } from './default-confirmation-card.ts';
import {
  isConnectionFailure,
  type McpConnection,
  type McpLog,
  type McpToolDefinition,
  McpUnreachableError,
} from './mcp-connection.ts';

/** The runtime's default, used when the server's configuration gives no `timeoutMs`. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** The SDK's own request timeout lies this far past the runtime's, so the runtime's decides. */
const SDK_TIMEOUT_MARGIN_MS = 1_000;

/** The `_meta` keys every call carries: who it acts for and where it comes from. */
export const MCP_META_USER_ID = 'runstream/userId';
export const MCP_META_RUN_ID = 'runstream/runId';
export const MCP_META_TOOL_CALL_ID = 'runstream/toolCallId';
export const MCP_META_TRACE_ID = 'runstream/traceId';

/** What an MCP tool's call gives the model and the tool block. */
export interface McpToolResult {
  /** The text content blocks joined by blank lines; other content is described in a line. */
  text: string;
  /** The tool's `structuredContent`, when it returned one. */
  structuredContent?: Record<string, unknown>;
}

/**
 * A runstream tool backed by one tool of an MCP server. Its arguments are checked against the
 * tool's `inputSchema` (the same JSON Schema conversion as host tools) before anything is sent; a
 * tool annotated `readOnlyHint: true` is a read, any other a write that waits for the owner's
 * confirmation on a card that shows the tool's title, description and labelled arguments (see
 * `defaultConfirmationCard`). An `isError` result, a JSON-RPC error or a lost connection fails the
 * call as a `ToolError` the model reads; a stop or a timeout cancels the request on the server.
 */
export function mcpTool(
  connection: McpConnection,
  definition: McpToolDefinition,
  name: string,
  log: McpLog,
  language: 'zh-CN' | 'en' = 'zh-CN',
): AnyTool {
  const validator = hostToolValidator({
    name,
    description: definition.description ?? '',
    parameters: definition.inputSchema as Record<string, unknown>,
  });
  if (validator.note !== undefined)
    log({ level: 'warn', message: validator.note, mcpServer: connection.name, tool: definition.name });
  const annotations = definition.annotations ?? {};
  const readOnly = annotations.readOnlyHint === true && connection.config.alwaysConfirm !== true;
  const title = definition.title ?? annotations.title ?? definition.name;
  const timeoutMs = connection.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const description = definition.description ?? title;
  const inputSchema = withoutSchemaKeyword(definition.inputSchema);
  return {
    name,
    title,
    description,
    parameters: validator.schema,
    inputSchema,
    effect: readOnly ? 'read' : 'write',
    timeoutMs,
    ...(readOnly
      ? {}
      : {
          confirm: async (args: unknown) =>
            defaultConfirmationCard({ title, description, inputSchema }, args),
        }),
    async execute(args: unknown, context: ToolContext): Promise<McpToolResult> {
      let result: CallToolResult;
      try {
        result = await connection.callTool(definition.name, args, {
          signal: context.signal,
          // The runtime's own timeout (the same length) aborts `context.signal` first, which cancels
          // the request; the SDK's is the backstop.
          timeoutMs: timeoutMs + SDK_TIMEOUT_MARGIN_MS,
          meta: metaOf(context),
        });
      } catch (error) {
        // A stop or a timeout: the runtime reports it as such, not as this error.
        if (context.signal.aborted) throw context.signal.reason;
        throw callFailure(connection, error, language);
      }
      const outcome = resultOf(result);
      if (result.isError === true)
        throw new ToolError(
          'mcp_tool_error',
          outcome.text === '' ? `${definition.name} failed` : outcome.text,
        );
      return outcome;
    },
  };
}

/** The run's owner and trace for the server, in `params._meta`; a W3C `traceparent` when it is one. */
function metaOf(context: ToolContext): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [MCP_META_USER_ID]: context.userId,
    [MCP_META_RUN_ID]: context.runId,
    [MCP_META_TOOL_CALL_ID]: context.toolCallId,
  };
  if (context.traceId !== undefined) {
    meta[MCP_META_TRACE_ID] = context.traceId;
    if (/^[\da-f]{32}$/.test(context.traceId)) meta.traceparent = `00-${context.traceId}-${spanId()}-01`;
  }
  return meta;
}

function spanId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Why a call failed, for the model and the person reading the tool block, in the agent's language:
 * not sent, sent with its outcome unknown (a write may have happened), or refused by the server.
 */
const FAILURES = {
  'zh-CN': {
    unreachable: (server: string, message: string) => `服务 ${server} 无法连接（${message}），本次调用未执行`,
    lost: (server: string, message: string) =>
      `服务 ${server} 连接中断（${message}），本次调用是否生效未知；下次调用会重新连接`,
    failed: (server: string, message: string) => `服务 ${server} 返回错误：${message}`,
  },
  en: {
    unreachable: (server: string, message: string) =>
      `the service ${server} cannot be reached (${message}); the call was not made`,
    lost: (server: string, message: string) =>
      `the connection to the service ${server} broke (${message}); whether the call took effect is unknown; the next call reconnects`,
    failed: (server: string, message: string) => `the service ${server} answered with an error: ${message}`,
  },
} as const;

function callFailure(connection: McpConnection, error: unknown, language: 'zh-CN' | 'en'): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  const texts = FAILURES[language];
  if (error instanceof McpUnreachableError)
    return new ToolError('mcp_unavailable', texts.unreachable(connection.name, message));
  if (isConnectionFailure(error))
    return new ToolError('mcp_unavailable', texts.lost(connection.name, message));
  return new ToolError('mcp_error', texts.failed(connection.name, message));
}

function resultOf(result: CallToolResult): McpToolResult {
  const lines = result.content.map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'resource':
        return 'text' in block.resource
          ? block.resource.text
          : `[resource ${block.resource.uri}, binary content omitted]`;
      case 'resource_link':
        return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
      default:
        return `[${block.type} ${'mimeType' in block ? block.mimeType : ''} content omitted]`;
    }
  });
  return {
    text: lines.join('\n\n'),
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
  };
}

/** The schema as the model is shown it: the `$schema` keyword is noise to a model. */
function withoutSchemaKeyword(schema: McpToolDefinition['inputSchema']): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}
