import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type AnyTool,
  type ConfirmationRequest,
  hostToolValidator,
  type ToolContext,
  ToolError,
} from '../runtime/index.ts';
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
/** Characters of one argument a confirmation card shows. */
const MAX_DETAIL_CHARS = 500;

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
 * confirmation. An `isError` result, a JSON-RPC error or a lost connection fails the call as a
 * `ToolError` the model reads; a stop or a timeout cancels the request on the server.
 */
export function mcpTool(
  connection: McpConnection,
  definition: McpToolDefinition,
  name: string,
  log: McpLog,
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
  return {
    name,
    title,
    description: definition.description ?? title,
    parameters: validator.schema,
    inputSchema: withoutSchemaKeyword(definition.inputSchema),
    effect: readOnly ? 'read' : 'write',
    timeoutMs,
    ...(readOnly
      ? {}
      : {
          confirm: async (args: unknown): Promise<ConfirmationRequest> =>
            confirmationCard(connection.name, definition, title, args),
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
        throw callFailure(connection, error);
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

function callFailure(connection: McpConnection, error: unknown): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof McpUnreachableError)
    return new ToolError(
      'mcp_unavailable',
      `MCP 服务 ${connection.name} 无法连接（${message}），本次调用未执行`,
    );
  if (isConnectionFailure(error))
    return new ToolError(
      'mcp_unavailable',
      `MCP 服务 ${connection.name} 连接失败（${message}），本次调用是否生效未知；下次调用会重新连接`,
    );
  return new ToolError('mcp_error', `MCP 服务 ${connection.name} 返回错误：${message}`);
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

function confirmationCard(
  server: string,
  definition: McpToolDefinition,
  title: string,
  args: unknown,
): ConfirmationRequest {
  const annotations = definition.annotations ?? {};
  // MCP's defaults: a tool that is not read-only may destroy, and is not idempotent.
  const notes = [
    annotations.readOnlyHint === true
      ? '该工具声明自己只读，此服务配置为总是确认'
      : annotations.destructiveHint === false
        ? '该工具声明此操作不具破坏性'
        : '该工具声明此操作可能不可撤销',
    ...(annotations.idempotentHint === true ? ['重复执行不会产生额外影响'] : []),
  ];
  const details = [
    { label: 'MCP 服务', value: server },
    { label: '工具', value: definition.name },
    ...Object.entries(args !== null && typeof args === 'object' ? (args as Record<string, unknown>) : {}).map(
      ([key, value]) => ({ label: key, value: shown(value) }),
    ),
  ];
  return {
    title,
    description: `通过 MCP 服务「${server}」调用 ${definition.name}。${notes.join('；')}。`,
    details,
  };
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}

/** The schema as the model is shown it: the `$schema` keyword is noise to a model. */
function withoutSchemaKeyword(schema: McpToolDefinition['inputSchema']): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}
