import type { ToolCallFace } from '../../store/index.ts';
import type { AgentCheckpoint } from '../agent/agent-checkpoint.ts';
import { LOAD_SKILL_TOOL } from '../agent/load-skill.ts';
import { type HostToolDefinition, HostToolDefinitionSchema, MAX_HOST_TOOLS } from '../tools/host-tool.ts';
import { RunError } from './run-error.ts';

const FACES: readonly ToolCallFace[] = ['chat', 'responses', 'ai-sdk', 'ag-ui'];

/** How a run is started, beyond its message. */
export interface RunOptions {
  /** Tools the caller declares and executes itself; the run waits for their results. */
  hostTools?: HostToolDefinition[];
  /** Appended to the system prompt for this run. */
  instructions?: string;
  /** The caller's trace id (1–200 characters): on `run.started`, tool contexts and audit entries. */
  traceId?: string;
  /** Which face started the run. Default `chat`. */
  face?: ToolCallFace;
}

/** The run's options as its checkpoint keeps them, so a resume (also after a restart) has them. */
export interface StoredRunOptions {
  /** The agent the run belongs to; absent in checkpoints of older versions (the default agent). */
  agentId?: string;
  /** Its revision when the run started (`ResolvedAgent.revision`). */
  agentRevision?: string;
  hostTools: HostToolDefinition[];
  instructions?: string;
  traceId?: string;
  face: ToolCallFace;
}

/** What is saved while a run is paused: where the agent stands, and how the run was started. */
export interface RunCheckpoint extends AgentCheckpoint {
  options?: StoredRunOptions;
}

/** The options a checkpoint was saved with; checkpoints of older versions had none. */
export function storedOptions(checkpoint: RunCheckpoint): StoredRunOptions {
  return checkpoint.options ?? { hostTools: [], face: 'chat' };
}

/**
 * The run's options checked and normalised, or `invalid_request`: a host tool named like a server
 * tool (or `load_skill`), twice, or not as a model API accepts.
 */
export function checkRunOptions(options: RunOptions, serverToolNames: readonly string[]): StoredRunOptions {
  if (typeof options !== 'object' || options === null)
    throw new RunError('invalid_request', 'run options must be an object');
  const { hostTools = [], instructions, traceId, face = 'chat' } = options;
  if (!Array.isArray(hostTools)) throw new RunError('invalid_request', 'hostTools must be an array');
  if (hostTools.length > MAX_HOST_TOOLS)
    throw new RunError('invalid_request', `at most ${MAX_HOST_TOOLS} host tools may be declared`);
  const reserved = new Set([LOAD_SKILL_TOOL, ...serverToolNames]);
  const names = new Set<string>();
  const definitions: HostToolDefinition[] = [];
  for (const [index, candidate] of hostTools.entries()) {
    const parsed = HostToolDefinitionSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RunError(
        'invalid_request',
        `host tool ${index}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`.trim(),
        { index },
      );
    }
    const { name } = parsed.data;
    if (reserved.has(name))
      throw new RunError('invalid_request', `host tool ${name} has the name of a server tool`, { name });
    if (names.has(name))
      throw new RunError('invalid_request', `host tool ${name} is declared twice`, { name });
    names.add(name);
    definitions.push({ name, description: parsed.data.description, parameters: parsed.data.parameters });
  }
  if (instructions !== undefined && typeof instructions !== 'string')
    throw new RunError('invalid_request', 'instructions must be a string');
  if (traceId !== undefined && (typeof traceId !== 'string' || traceId.length < 1 || traceId.length > 200))
    throw new RunError('invalid_request', 'a trace id has 1 to 200 characters');
  if (!FACES.includes(face)) throw new RunError('invalid_request', `face must be one of ${FACES.join(', ')}`);
  return {
    hostTools: definitions,
    face,
    ...(instructions !== undefined ? { instructions } : {}),
    ...(traceId !== undefined ? { traceId } : {}),
  };
}
