import type { ChatModel } from '../../models/index.ts';
import type { ToolAuditEntry, ToolCallFace } from '../../store/index.ts';
import type { RunLog } from '../log/run-log.ts';
import type { HostToolDefinition } from '../tools/host-tool.ts';
import type { AnyTool } from '../tools/tool.ts';
import type { ToolPolicy } from '../tools/tool-policy.ts';
import type { RunMessages } from './run-messages.ts';
import type { Skill } from './skill.ts';

export interface AgentContext {
  runId: string;
  conversationId: string;
  userId: string;
  /** The trace id the run was started under; tools, policies and audit entries get it. */
  traceId?: string;
  /** Which face started the run. Default `chat`. */
  face?: ToolCallFace;
}

export interface AgentOptions {
  model: ChatModel;
  tools: readonly AnyTool[];
  skills: readonly Skill[];
  log: RunLog;
  context: AgentContext;
  signal: AbortSignal;
  /** Model turns with tools before the summary turn. Default 10. */
  maxIterations?: number;
  /** The texts shown to a person or the model (hints, error blocks). Default: the zh-CN table. */
  messages?: RunMessages;
  /** New block ids; default `blk_<n>` numbered within the run. */
  newBlockId?: () => string;
  /**
   * Tools the caller declared and runs itself, offered next to `tools`. A call of one pauses the run
   * (`run.paused`, reason `tool_result`) until `resumeWithToolResults`.
   */
  hostTools?: readonly HostToolDefinition[];
  /** Checked in order for every tool call after its arguments validate, before anything runs. */
  policies?: readonly ToolPolicy[];
  /** Told each tool call's audit entry once its outcome is known. Must not throw (it is guarded). */
  onToolAudit?: (entry: ToolAuditEntry) => void;
}
