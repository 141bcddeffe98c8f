import type { AgentOrigin, AgentSkill, ToolSettings } from './agent.ts';
import { AgentDefinitionError, type DefinitionPlace } from './agent-definition-error.ts';
import type { AnyAgentTool } from './tool.ts';

/** The parts of a definition that name tools and skills. */
export interface ToolReferences {
  tools: readonly AnyAgentTool[];
  skills: readonly AgentSkill[];
  toolSettings: Readonly<Record<string, ToolSettings>>;
  origin?: AgentOrigin;
}

/**
 * Which skill unlocks each tool, from the skills' `tools` lists, the tools' own `requiresSkill` and
 * the tool settings, checked: every skill named exists, every tool named is one of `toolNames`
 * (when given: MCP tools are only known once their servers are connected), and no tool is unlocked
 * by two different skills (the runtime hides a tool behind one). A tool's settings override the
 * tool's own `requiresSkill`. A problem throws an
 * `AgentDefinitionError` naming where it was written.
 */
export function skillUnlocks(parts: ToolReferences, toolNames?: ReadonlySet<string>): Map<string, string> {
  const place = (key: string, fallback?: string): DefinitionPlace =>
    parts.origin?.places[key] ?? (fallback === undefined ? undefined : parts.origin?.places[fallback]) ?? {};
  const skills = new Set(parts.skills.map((skill) => skill.name));
  const known = toolNames === undefined ? '' : ` (tools: ${[...toolNames].sort().join(', ') || 'none'})`;
  const unlocks = new Map<string, string>();
  const unlock = (tool: string, skill: string, where: DefinitionPlace) => {
    if (!skills.has(skill))
      throw new AgentDefinitionError(
        `tool ${tool} requires the skill ${skill}, which does not exist (skills: ${[...skills].join(', ') || 'none'})`,
        where,
      );
    const already = unlocks.get(tool);
    if (already !== undefined && already !== skill)
      throw new AgentDefinitionError(
        `tool ${tool} is unlocked by two skills, ${already} and ${skill}; a tool is unlocked by one`,
        where,
      );
    unlocks.set(tool, skill);
  };
  for (const skill of parts.skills)
    for (const tool of skill.tools ?? []) {
      const where = place(`skills.${skill.name}.tools`, `skills.${skill.name}`);
      if (toolNames !== undefined && !toolNames.has(tool))
        throw new AgentDefinitionError(
          `skill ${skill.name} unlocks ${tool}, a tool that does not exist${known}`,
          where,
        );
      unlock(tool, skill.name, where);
    }
  const settled = new Set<string>();
  for (const [tool, settings] of Object.entries(parts.toolSettings)) {
    const where = place(`toolSettings.${tool}`, 'agent');
    if (toolNames !== undefined && !toolNames.has(tool))
      throw new AgentDefinitionError(`settings for ${tool}, a tool that does not exist${known}`, where);
    if (settings.requiresSkill === undefined) continue;
    unlock(tool, settings.requiresSkill, where);
    settled.add(tool);
  }
  // A tool's own requiresSkill gives way to its settings (they override the code), not to a skill.
  for (const tool of parts.tools)
    if (tool.requiresSkill !== undefined && !settled.has(tool.name))
      unlock(tool.name, tool.requiresSkill, place(`tools.${tool.name}`));
  return unlocks;
}
