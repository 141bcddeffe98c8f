import type { ToolDefinition } from '../../models/index.ts';
import type { HostToolValidator } from '../tools/host-tool.ts';
import type { AnyTool } from '../tools/tool.ts';
import type { ToolPolicy } from '../tools/tool-policy.ts';
import { toolJsonSchema } from '../tools/tool-schema-hash.ts';
import { LOAD_SKILL_TOOL, loadSkillDefinition } from './load-skill.ts';
import type { Skill } from './skill.ts';

/**
 * The tools the model is offered in a turn: the server's (those behind a skill once it is loaded),
 * the host's, and `load_skill` first when there are skills. A tool a policy refuses outright
 * (`ToolPolicy.offers`) is not offered at all: a model cannot be tempted by what it never sees, and
 * a call to it anyway is still denied and audited by the same policy.
 */
export function visibleTools(
  tools: readonly AnyTool[],
  hostTools: ReadonlyMap<string, HostToolValidator>,
  skills: readonly Skill[],
  loadedSkills: ReadonlySet<string>,
  policies: readonly ToolPolicy[] = [],
): ToolDefinition[] {
  const offered = (name: string) => policies.every((policy) => policy.offers?.(name) ?? true);
  const visible = tools
    .filter((tool) => tool.requiresSkill === undefined || loadedSkills.has(tool.requiresSkill))
    .filter((tool) => offered(tool.name))
    .map((tool) => ({ name: tool.name, description: tool.description, parameters: toolJsonSchema(tool) }));
  for (const host of hostTools.values()) {
    const { name, description, parameters } = host.definition;
    visible.push({ name, description, parameters });
  }
  if (skills.length === 0 || !offered(LOAD_SKILL_TOOL)) return visible;
  return [loadSkillDefinition(skills), ...visible];
}
