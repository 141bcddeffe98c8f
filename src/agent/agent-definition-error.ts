/** Where a definition problem is: the file (agent.json, a SKILL.md, mcp.json, a tool module) and line. */
export interface DefinitionPlace {
  file?: string;
  line?: number;
}

/**
 * An agent definition that cannot run: a bad `tool()` or `defineAgent()` call, or a folder whose files
 * do not add up (an unknown key in agent.json, bad front matter, a skill unlocking a tool that does
 * not exist, an unreachable MCP server). The message starts with `file:line:` when the problem is in
 * a file, so the person starting the server can go straight to it.
 */
export class AgentDefinitionError extends Error {
  override readonly name = 'AgentDefinitionError';
  readonly file?: string;
  readonly line?: number;
  /** The problem without the `file:line:` prefix. */
  readonly reason: string;

  constructor(reason: string, place: DefinitionPlace = {}) {
    super(prefixOf(place) + reason);
    this.reason = reason;
    if (place.file !== undefined) this.file = place.file;
    if (place.line !== undefined) this.line = place.line;
  }
}

function prefixOf({ file, line }: DefinitionPlace): string {
  if (file === undefined) return '';
  return line === undefined ? `${file}: ` : `${file}:${line}: `;
}
