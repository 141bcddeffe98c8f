import type { ChatModel } from '../../models/index.ts';
import type { ResolvedAgent } from '../agent/resolved-agent.ts';
import { type RunMessages, runMessagesFor } from '../agent/run-messages.ts';
import type { Skill } from '../agent/skill.ts';
import type { AnyTool } from '../tools/tool.ts';
import type { ToolPolicy } from '../tools/tool-policy.ts';

/** A `ResolvedAgent` for tests that build a `RunManager` by hand: a model, tools and a prompt. */
export function testAgent(options: {
  model: ChatModel;
  tools?: readonly AnyTool[];
  skills?: readonly Skill[];
  instructions?: string;
  id?: string;
  maxSteps?: number;
  policies?: readonly ToolPolicy[];
  messages?: RunMessages;
  revision?: string;
}): ResolvedAgent {
  return {
    id: options.id ?? 'test',
    name: options.id ?? 'test',
    model: options.model,
    instructions: options.instructions ?? '你是客服。',
    tools: options.tools ?? [],
    skills: options.skills ?? [],
    messages: options.messages ?? runMessagesFor('zh-CN'),
    revision: options.revision ?? 'test',
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.policies !== undefined ? { policies: options.policies } : {}),
  };
}
