import type { AnyTool, Skill } from '../runtime/index.ts';
import { stableStringify, toolJsonSchema } from '../runtime/tools/tool-schema-hash.ts';
import { sha256Hex } from '../shared/sha256.ts';

/** What a revision is taken over: what the agent is told and what its tools and skills mean. */
export interface RevisionParts {
  id: string;
  instructions: string;
  tools: readonly AnyTool[];
  skills: readonly Skill[];
}

/**
 * A short sha256 (16 hex characters) over the agent's id, instructions, each tool's name, effect and
 * JSON Schema, and each skill's name, handbook and unlocked tools, in a canonical form (tools and
 * skills by name, object keys sorted): the same definition gives the same revision after a restart,
 * and a changed schema a different one, so a run paused before the change is told so on approval.
 */
export function agentRevision(parts: RevisionParts): string {
  const byName = <T extends { name: string }>(items: readonly T[]) =>
    [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const material = stableStringify({
    id: parts.id,
    instructions: parts.instructions,
    tools: byName(parts.tools).map((tool) => ({
      name: tool.name,
      effect: tool.effect,
      schema: toolJsonSchema(tool),
    })),
    skills: byName(parts.skills).map((skill) => ({
      name: skill.name,
      body: skill.body,
      unlocks: [...skill.unlocksTools].sort(),
    })),
  });
  return sha256Hex(material).slice(0, 16);
}
