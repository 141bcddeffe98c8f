import { z } from 'zod';
import type { ToolDefinition } from '../models/index.ts';
import type { HostToolValidator } from './host-tool.ts';
import { loadSkillDefinition } from './load-skill.ts';
import type { Skill } from './skill.ts';
import type { AnyTool } from './tool.ts';

/**
 * The tools the model is offered in a turn: the server's (those behind a skill once it is loaded),
 * the host's, and `load_skill` first when there are skills.
 */
export function visibleTools(
  tools: readonly AnyTool[],
  hostTools: ReadonlyMap<string, HostToolValidator>,
  skills: readonly Skill[],
  loadedSkills: ReadonlySet<string>,
): ToolDefinition[] {
  const visible = tools
    .filter((tool) => tool.requiresSkill === undefined || loadedSkills.has(tool.requiresSkill))
    .map((tool) => ({ name: tool.name, description: tool.description, parameters: jsonSchemaOf(tool) }));
  for (const host of hostTools.values()) {
    const { name, description, parameters } = host.definition;
    visible.push({ name, description, parameters });
  }
  if (skills.length === 0) return visible;
  return [loadSkillDefinition(skills), ...visible];
}

function jsonSchemaOf(tool: AnyTool): Record<string, unknown> {
  if (tool.inputSchema !== undefined) return tool.inputSchema;
  const schema = z.toJSONSchema(tool.parameters, { target: 'draft-7' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
