import { sha256Hex } from '../shared/sha256.ts';

const MAX_NAME_LENGTH = 64;
const SEPARATOR = '__';

/** One MCP server's tools as it lists them; servers in the configuration's order. */
export interface McpToolListing {
  server: string;
  tools: readonly string[];
}

/**
 * The names the model calls MCP tools by, one list per server in the listings' order. A tool keeps
 * its own name (characters outside `[A-Za-z0-9_-]` replaced by `_`, so it is a valid function name
 * for every OpenAI-compatible API), which is what an agent's settings, skills and instructions call
 * it. Only when that name collides (another server offers a tool of the same name, or the name is
 * `reserved`: the agent's own tools, `load_skill`) is the tool called `<server>__<tool>`, and then
 * every MCP tool of that name is, so which server a name means never depends on the order servers
 * connect in. The names depend only on the configuration and the servers' listings, so they are the
 * same after a restart: a run paused on a confirmation finds its tool.
 */
export function mcpToolNames(listings: readonly McpToolListing[], reserved: Iterable<string>): string[][] {
  const taken = new Set(reserved);
  const offered = new Map<string, number>();
  for (const listing of listings)
    for (const tool of listing.tools) offered.set(plainName(tool), (offered.get(plainName(tool)) ?? 0) + 1);
  const kept = new Set(
    [...offered]
      .filter(([plain, count]) => count === 1 && plain.length <= MAX_NAME_LENGTH && !taken.has(plain))
      .map(([plain]) => plain),
  );
  // Kept names are taken before any qualified name is made, so none can take a kept one.
  for (const plain of kept) taken.add(plain);
  return listings.map((listing) =>
    listing.tools.map((tool) => {
      if (kept.has(plainName(tool))) return plainName(tool);
      const name = qualifiedMcpToolName(listing.server, tool, taken);
      taken.add(name);
      return name;
    }),
  );
}

/**
 * `<server>__<tool>`, with every character outside `[A-Za-z0-9_-]` replaced by `_`. A name longer
 * than 64 characters, or one already `taken`, is cut and ends in 8 hex characters of a hash of the
 * full `server/tool` pair instead.
 */
export function qualifiedMcpToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const plain = plainName(`${server}${SEPARATOR}${tool}`);
  if (plain.length <= MAX_NAME_LENGTH && !taken.has(plain)) return plain;
  for (let attempt = 0; ; attempt += 1) {
    const digest = sha256Hex(`${server}/${tool}${attempt === 0 ? '' : `#${attempt}`}`).slice(0, 8);
    const name = `${plain.slice(0, MAX_NAME_LENGTH - digest.length - 1)}_${digest}`;
    if (!taken.has(name)) return name;
  }
}

function plainName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}
