import { z } from 'zod';
import type {
  ChatMessage,
  ChatModel,
  ChatStreamPart,
  ToolCallRequest,
  ToolDefinition,
} from '../../../src/models/chat-model.ts';
import { turnProblems } from '../../../src/models/test-support/turn-problems.ts';
import type { Skill } from '../../../src/runtime/agent/skill.ts';
import type { AnyTool, ConfirmationRequest } from '../../../src/runtime/tools/tool.ts';
import { toolContext } from './novashop-fixture.ts';

export interface DrivenTurn {
  parts: ChatStreamPart[];
  reasoning: string;
  text: string;
  calls: ToolCallRequest[];
  /** The tools the model was offered in this turn. */
  offered: string[];
  problems: string[];
}

export interface ToolRun {
  call: ToolCallRequest;
  /** The tool message content the model will read. */
  content: string;
  card?: ConfirmationRequest;
}

export type Decision = 'approve' | 'reject';

/**
 * Drives a `ChatModel` turn by turn without the runtime, by building the `ChatRequest`s by hand:
 * the user message, the model's turn, the assistant message with its tool calls, the tool results
 * (from the real tools), the next turn … Tool messages are written as the runtime writes them:
 * the result's JSON; `{"error": {"code", "message"}}` for a failure; `{"rejected": true, "message"}`
 * for a rejected confirmation; `load_skill` returns `{name, title, unlockedTools, handbook}`.
 */
export class ModelDriver {
  readonly messages: ChatMessage[] = [];
  readonly turns: DrivenTurn[] = [];
  readonly cards: ConfirmationRequest[] = [];
  readonly #model: ChatModel;
  readonly #tools: readonly AnyTool[];
  readonly #skills: readonly Skill[];
  readonly #loaded = new Set<string>();
  readonly #userId: string;

  constructor(options: {
    model: ChatModel;
    tools: readonly AnyTool[];
    skills: readonly Skill[];
    userId?: string;
  }) {
    this.#model = options.model;
    this.#tools = options.tools;
    this.#skills = options.skills;
    this.#userId = options.userId ?? 'user_demo';
  }

  say(text: string): this {
    this.messages.push({ role: 'user', content: text });
    return this;
  }

  /** One model turn with the tools visible now (or `[]` for a summary turn). */
  async turn(options: { tools?: ToolDefinition[] } = {}): Promise<DrivenTurn> {
    const tools = options.tools ?? this.visibleTools();
    const parts: ChatStreamPart[] = [];
    for await (const part of this.#model.stream({ messages: [...this.messages], tools })) parts.push(part);
    const turn: DrivenTurn = {
      parts,
      reasoning: joined(parts, 'reasoning-delta'),
      text: joined(parts, 'text-delta'),
      calls: parts.flatMap((part) =>
        part.type === 'tool-call-end' ? [{ id: part.id, name: part.name, arguments: part.arguments }] : [],
      ),
      offered: tools.map((tool) => tool.name),
      problems: turnProblems(parts),
    };
    this.messages.push({
      role: 'assistant',
      content: turn.text,
      ...(turn.reasoning ? { reasoning: turn.reasoning } : {}),
      ...(turn.calls.length > 0 ? { toolCalls: turn.calls } : {}),
    });
    this.turns.push(turn);
    return turn;
  }

  /** Run the last turn's calls like the runtime does and append their results. */
  async runCalls(decide: (card: ConfirmationRequest) => Decision = () => 'approve'): Promise<ToolRun[]> {
    const last = this.turns.at(-1);
    const runs: ToolRun[] = [];
    for (const call of last?.calls ?? []) {
      const run = await this.#run(call, decide);
      this.messages.push({ role: 'tool', toolCallId: call.id, content: run.content });
      runs.push(run);
    }
    return runs;
  }

  visibleTools(): ToolDefinition[] {
    const loadSkill: ToolDefinition = {
      name: 'load_skill',
      description: '加载技能手册',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    };
    return [
      loadSkill,
      ...this.#tools
        .filter((tool) => tool.requiresSkill === undefined || this.#loaded.has(tool.requiresSkill))
        .map((tool) => ({
          name: tool.name,
          description: tool.description,
          parameters: z.toJSONSchema(tool.parameters, { target: 'draft-7' }) as Record<string, unknown>,
        })),
    ];
  }

  async #run(call: ToolCallRequest, decide: (card: ConfirmationRequest) => Decision): Promise<ToolRun> {
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      return { call, content: failure('invalid_arguments', 'arguments are not JSON') };
    }
    if (call.name === 'load_skill') {
      const name = z.object({ name: z.string() }).safeParse(args);
      const skill = this.#skills.find((candidate) => name.success && candidate.name === name.data.name);
      if (skill === undefined) return { call, content: failure('unknown_skill', 'no such skill') };
      this.#loaded.add(skill.name);
      const result = {
        name: skill.name,
        title: skill.title,
        unlockedTools: skill.unlocksTools,
        handbook: skill.body,
      };
      return { call, content: JSON.stringify(result) };
    }
    const tool = this.#tools.find((candidate) => candidate.name === call.name);
    if (tool === undefined) return { call, content: failure('unknown_tool', `no tool named ${call.name}`) };
    const parsed = tool.parameters.safeParse(args);
    if (!parsed.success)
      return { call, content: failure('invalid_arguments', z.prettifyError(parsed.error)) };
    const context = toolContext(this.#userId, call.id);
    try {
      if (tool.effect === 'write') {
        const card = tool.confirm ? await tool.confirm(parsed.data, context) : undefined;
        if (card) this.cards.push(card);
        if (card && decide(card) === 'reject') {
          return {
            call,
            card,
            content: JSON.stringify({ rejected: true, message: '用户拒绝了这个操作，未执行。' }),
          };
        }
        const result = await tool.execute(parsed.data, context);
        return { call, ...(card ? { card } : {}), content: JSON.stringify(result ?? null) };
      }
      return { call, content: JSON.stringify((await tool.execute(parsed.data, context)) ?? null) };
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'tool_failed';
      return { call, content: failure(code, error instanceof Error ? error.message : String(error)) };
    }
  }
}

function joined(parts: readonly ChatStreamPart[], type: 'reasoning-delta' | 'text-delta'): string {
  return parts.map((part) => (part.type === type ? part.text : '')).join('');
}

function failure(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}
