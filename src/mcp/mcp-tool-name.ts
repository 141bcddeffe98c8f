import { createHash } from 'node:crypto';

const MAX_NAME_LENGTH = 64;
const SEPARATOR = '__';

/**
 * The name the model calls an MCP tool by: `<server>__<tool>`, with every character outside
 * `[A-Za-z0-9_-]` replaced by `_`, so it is a valid function name for every OpenAI-compatible API.
 * A name longer than 64 characters, or one that is already `taken` (a server tool, another MCP
 * tool that sanitised to the same name), is cut and ends in 8 hex characters of a hash of the full
 * `server/tool` pair instead. The name depends only on the pair and on what came before it in the
 * configuration, so it is the same after a restart: a run paused on a confirmation finds its tool.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const plain = `${server}${SEPARATOR}${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (plain.length <= MAX_NAME_LENGTH && !taken.has(plain)) return plain;
  for (let attempt = 0; ; attempt += 1) {
    const digest = createHash('sha256')
      .update(`${server}/${tool}${attempt === 0 ? '' : `#${attempt}`}`)
      .digest('hex')
      .slice(0, 8);
    const name = `${plain.slice(0, MAX_NAME_LENGTH - digest.length - 1)}_${digest}`;
    if (!taken.has(name)) return name;
  }
}
