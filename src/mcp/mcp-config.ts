import { z } from 'zod';

/**
 * Why the MCP configuration cannot be used, in one sentence for the person starting the server. It
 * names the setting and the server, never a header's or an environment variable's value.
 */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

/** A server name becomes the prefix of its tools' names, so it keeps to the tool-name alphabet. */
const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

const common = {
  /** Every tool of this server asks for confirmation, whatever its `readOnlyHint` says. */
  alwaysConfirm: z.boolean().optional(),
  /** Per-call timeout of this server's tools in milliseconds (default: the runtime's 30 000). */
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
};

const StdioServerSchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1, 'command must not be empty'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    ...common,
  })
  .strict();

const HttpServerSchema = z
  .object({
    type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional(),
    /** Checked once `${NAME}` references are expanded. */
    url: z.string().min(1, 'url must not be empty'),
    headers: z.record(z.string(), z.string()).optional(),
    ...common,
  })
  .strict();

const ServerSchema = z.union([StdioServerSchema, HttpServerSchema], {
  error: 'each server has either "command" (stdio) or "url" (Streamable HTTP), with only the known fields',
});

const ConfigSchema = z
  .object({
    mcpServers: z.record(z.string().regex(SERVER_NAME_PATTERN), ServerSchema, {
      error: 'mcpServers must be an object of servers by name',
    }),
  })
  .strict();

export type McpStdioServerConfig = z.infer<typeof StdioServerSchema>;
export type McpHttpServerConfig = z.infer<typeof HttpServerSchema>;
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;
/** The servers by name, in the order the configuration lists them. */
export type McpServersConfig = ReadonlyMap<string, McpServerConfig>;

export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  return 'command' in config;
}

/**
 * The MCP servers configured by `RUNSTREAM_MCP_CONFIG` (a JSON file's path) or `RUNSTREAM_MCP_SERVERS`
 * (the JSON itself), in the common `{"mcpServers": {...}}` shape; undefined when neither is set.
 * `${NAME}` in a command, argument, working directory, environment value, URL or header value is
 * replaced by that variable of `env`, so a secret can stay out of the file.
 */
export function mcpConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): McpServersConfig | undefined {
  const path = env.RUNSTREAM_MCP_CONFIG?.trim();
  const inline = env.RUNSTREAM_MCP_SERVERS?.trim();
  if (path && inline) throw new McpConfigError('set RUNSTREAM_MCP_CONFIG or RUNSTREAM_MCP_SERVERS, not both');
  if (!path && !inline) return undefined;
  let text: string;
  let source: string;
  if (path) {
    source = `RUNSTREAM_MCP_CONFIG (${path})`;
    try {
      // Fetched here, not imported: `parseMcpConfig` sits on the Web-standard core's path.
      text = process.getBuiltinModule('node:fs').readFileSync(path, 'utf8');
    } catch (error) {
      throw new McpConfigError(`${source} cannot be read: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
  } else {
    source = 'RUNSTREAM_MCP_SERVERS';
    text = inline as string;
  }
  return parseMcpConfig(text, source, env);
}

/** Parse and check a configuration's JSON text; `source` names it in errors. */
export function parseMcpConfig(
  text: string,
  source: string,
  env: Readonly<Record<string, string | undefined>> = {},
): McpServersConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success) {
    // The issues name paths and rules, never the values (a header may hold a token).
    const issues = parsed.error.issues.map((issue) => {
      const at = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
      const message =
        issue.code === 'invalid_key'
          ? 'a server name has 1 to 32 letters, digits, _ or - (it prefixes its tools’ names)'
          : issue.message;
      return `${at}: ${message}`;
    });
    throw new McpConfigError(
      `${source} is not a valid MCP configuration ({"mcpServers": {"<name>": {"command": …} | {"url": …}}}): ${issues.join('; ')}`,
    );
  }
  const servers = new Map<string, McpServerConfig>();
  for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
    servers.set(name, expandServer(name, server, env, source));
  }
  return servers;
}

function expandServer(
  name: string,
  server: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
  source: string,
): McpServerConfig {
  // `${NAME}` must be set; `${NAME:-fallback}` reads as the fallback (possibly empty) when it is not.
  const expand = (value: string, field: string) =>
    value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
      (_match, variable: string, fallback?: string) => {
        const found = env[variable] ?? fallback;
        if (found === undefined)
          throw new McpConfigError(
            `${source}: mcpServers.${name}.${field} uses \${${variable}}, which is not set in the environment`,
          );
        return found;
      },
    );
  const expandRecord = (record: Record<string, string> | undefined, field: string) =>
    record === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(record).map(([key, value]) => [key, expand(value, `${field}.${key}`)]),
        );
  if (isStdioServer(server)) {
    const env = expandRecord(server.env, 'env');
    return {
      ...server,
      command: expand(server.command, 'command'),
      ...(server.args === undefined
        ? {}
        : { args: server.args.map((arg, index) => expand(arg, `args.${index}`)) }),
      ...(server.cwd === undefined ? {} : { cwd: expand(server.cwd, 'cwd') }),
      ...(env === undefined ? {} : { env }),
    };
  }
  const url = expand(server.url, 'url');
  const parsedUrl = URL.canParse(url) ? new URL(url) : undefined;
  if (parsedUrl === undefined || !['http:', 'https:'].includes(parsedUrl.protocol))
    throw new McpConfigError(`${source}: mcpServers.${name}.url must be an http(s) URL`);
  const headers = expandRecord(server.headers, 'headers');
  return { ...server, url, ...(headers === undefined ? {} : { headers }) };
}

/** What may be logged about a server: its transport and where it is, without env or header values. */
export function describeMcpServer(config: McpServerConfig): Record<string, unknown> {
  if (isStdioServer(config)) return { transport: 'stdio', command: config.command };
  const url = new URL(config.url);
  // Credentials and query strings may hold tokens.
  return { transport: 'streamable-http', url: `${url.origin}${url.pathname}` };
}
