import type { ToolCallFace } from '../../store/index.ts';

/** A tool call as the policies see it: after its arguments validated, before anything runs. */
export interface ToolCallInfo {
  runId: string;
  conversationId: string;
  toolCallId: string;
  name: string;
  /** The validated arguments (a copy: changing it changes nothing; rewrite to change them). */
  args: unknown;
  /** The run's owner: who the call acts for. */
  userId: string;
  traceId?: string;
  face: ToolCallFace;
  /** `server`: one of this server's tools (or `load_skill`); `host`: a tool the caller runs itself. */
  executor: 'server' | 'host';
  effect: 'read' | 'write' | 'host';
}

export type ToolPolicyDecision =
  | { action: 'allow' }
  | { action: 'deny'; reason: string }
  | { action: 'rewrite'; args: unknown; reason?: string };

/**
 * A governance hook around every tool call, on both faces: it sees the call (name, arguments, caller,
 * trace id) and allows it, denies it with a reason (the model reads it in a failed tool block, code
 * `tool_denied`), or rewrites its arguments (validated again against the tool's schema; the card, the
 * host and the tool see the rewritten ones). Policies run in order; the first deny ends the check.
 */
export interface ToolPolicy {
  name: string;
  check(call: ToolCallInfo): ToolPolicyDecision | Promise<ToolPolicyDecision>;
  /**
   * Whether the model is offered the tool at all. A policy that refuses a tool whatever its
   * arguments (a deny list) says `false`, so the model never sees it; `check` still denies a call
   * to it. Absent: every tool is offered.
   */
  offers?(toolName: string): boolean;
}

export type ArgsValidation = { success: true; data: unknown } | { success: false; error: string };

/** What the policies made of one call. */
export type ToolPolicyOutcome =
  | {
      decision: 'allow' | 'rewrite';
      /** The arguments to use: validated, and rewritten when `decision` is `rewrite`. */
      args: unknown;
      /** The validated arguments before the first rewrite. */
      originalArgs?: unknown;
      /** The policies that rewrote, comma-separated. */
      policy?: string;
      reason?: string;
    }
  | { decision: 'deny'; args: unknown; originalArgs?: unknown; policy: string; reason: string }
  /** A rewrite the tool's schema refused: the call fails, nothing runs. */
  | {
      decision: 'invalid_rewrite';
      args: unknown;
      originalArgs: unknown;
      policy: string;
      reason: string;
    };

/**
 * Run `policies` in order over a call whose arguments validated. A rewrite is validated with
 * `validate` before the next policy sees it. A policy that throws, or answers something that is not a
 * decision, denies: a governance hook fails closed.
 */
export async function applyToolPolicies(
  policies: readonly ToolPolicy[],
  call: ToolCallInfo,
  validate: (args: unknown) => ArgsValidation,
): Promise<ToolPolicyOutcome> {
  let args = call.args;
  const rewrites: { policy: string; reason?: string }[] = [];
  const rewritten = () =>
    rewrites.length === 0
      ? {}
      : {
          originalArgs: call.args,
          policy: rewrites.map((rewrite) => rewrite.policy).join(', '),
          ...(rewrites.some((rewrite) => rewrite.reason)
            ? {
                reason: rewrites.flatMap((rewrite) => (rewrite.reason ? [rewrite.reason] : [])).join('; '),
              }
            : {}),
        };
  for (const policy of policies) {
    let decision: ToolPolicyDecision;
    try {
      decision = await policy.check({ ...call, args: copyOf(args) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        decision: 'deny',
        args,
        ...(rewrites.length > 0 ? { originalArgs: call.args } : {}),
        policy: policy.name,
        reason: `policy ${policy.name} failed: ${message}`,
      };
    }
    if (decision?.action === 'allow') continue;
    if (decision?.action === 'deny') {
      return {
        decision: 'deny',
        args,
        ...(rewrites.length > 0 ? { originalArgs: call.args } : {}),
        policy: policy.name,
        reason: typeof decision.reason === 'string' && decision.reason !== '' ? decision.reason : 'denied',
      };
    }
    if (decision?.action === 'rewrite') {
      const checked = validate(copyOf(decision.args));
      if (!checked.success) {
        return {
          decision: 'invalid_rewrite',
          args: decision.args,
          originalArgs: call.args,
          policy: policy.name,
          reason: `policy ${policy.name} rewrote the arguments into ones the tool does not accept: ${checked.error}`,
        };
      }
      args = checked.data;
      rewrites.push({ policy: policy.name, ...(decision.reason ? { reason: decision.reason } : {}) });
      continue;
    }
    return {
      decision: 'deny',
      args,
      ...(rewrites.length > 0 ? { originalArgs: call.args } : {}),
      policy: policy.name,
      reason: `policy ${policy.name} gave no decision`,
    };
  }
  return rewrites.length === 0 ? { decision: 'allow', args } : { decision: 'rewrite', args, ...rewritten() };
}

/** JSON values are copied, so a policy cannot change the arguments behind the validator's back. */
function copyOf(value: unknown): unknown {
  return value === undefined ? undefined : structuredClone(value);
}
