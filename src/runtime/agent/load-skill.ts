import { z } from 'zod';
import type { ToolCallRequest, ToolDefinition } from '../../models/index.ts';
import { validateWith } from '../tools/tool-execution.ts';
import type { AgentParts } from './agent-parts.ts';
import type { Skill } from './skill.ts';

export const LOAD_SKILL_TOOL = 'load_skill';

const LOAD_SKILL_ARGS = z.object({ name: z.string() });

/** The `load_skill` tool as the model sees it: it loads a handbook, which unlocks the tools it covers. */
export function loadSkillDefinition(skills: readonly Skill[]): ToolDefinition {
  const catalogue = skills.map((skill) => `${skill.name}: ${skill.description}`).join('\n');
  return {
    name: LOAD_SKILL_TOOL,
    description: `Load a handbook before a task it covers; some tools appear only after it is loaded.\n${catalogue}`,
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', enum: skills.map((skill) => skill.name) } },
      required: ['name'],
    },
  };
}

/** Vet and run one `load_skill` call; returns the tool message for the model. */
export async function handleLoadSkill(
  parts: AgentParts,
  request: ToolCallRequest,
  blockId: string,
  rawArgs: unknown,
  loadedSkills: Set<string>,
): Promise<string> {
  const parsed = LOAD_SKILL_ARGS.safeParse(rawArgs);
  // An unknown or missing skill name fails in loadSkill, as before any policy sees it.
  if (!parsed.success) return loadSkill(parts, request.id, blockId, rawArgs, loadedSkills);
  const vetted = await parts.execution.vet(request, blockId, parsed.data, (args) =>
    validateWith(LOAD_SKILL_ARGS, args),
  );
  if ('failed' in vetted) return vetted.failed;
  return loadSkill(parts, request.id, blockId, vetted.args, loadedSkills);
}

function loadSkill(
  parts: AgentParts,
  toolCallId: string,
  blockId: string,
  args: unknown,
  loadedSkills: Set<string>,
): string {
  const { log, skills } = parts.options;
  const name = LOAD_SKILL_ARGS.safeParse(args);
  const skill = name.success ? skills.find((candidate) => candidate.name === name.data.name) : undefined;
  if (skill === undefined) {
    const known = skills.map((candidate) => candidate.name).join(', ');
    return parts.execution.fail(
      toolCallId,
      blockId,
      'unknown_skill',
      `no skill named ${name.success ? name.data.name : '?'}; known: ${known}`,
    );
  }
  log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId, status: 'running', args });
  loadedSkills.add(skill.name);
  const result = {
    name: skill.name,
    title: skill.title,
    unlockedTools: skill.unlocksTools,
    handbook: skill.body,
  };
  parts.execution.showResult(toolCallId, blockId, {
    name: skill.name,
    title: skill.title,
    unlockedTools: skill.unlocksTools,
  });
  parts.blocks.endBlock(blockId, undefined, 0);
  parts.calls.audit(toolCallId, 'done', { durationMs: 0 });
  return JSON.stringify(result);
}
