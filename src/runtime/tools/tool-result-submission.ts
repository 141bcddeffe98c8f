import type { HostToolResult } from '../../store/index.ts';
import { RunError } from '../runs/run-error.ts';

/**
 * A submission as results by call id, refused whole (`invalid_request`) when any entry is malformed
 * or one call gets two different results.
 */
export function checkSubmission(submitted: unknown): Map<string, HostToolResult> {
  if (!Array.isArray(submitted) || submitted.length === 0)
    throw new RunError('invalid_request', 'submit at least one tool result');
  const results = new Map<string, HostToolResult>();
  for (const [index, entry] of submitted.entries()) {
    const { toolCallId, output, error } = (entry ?? {}) as {
      toolCallId?: unknown;
      output?: unknown;
      error?: unknown;
    };
    if (typeof toolCallId !== 'string' || toolCallId === '')
      throw new RunError('invalid_request', `tool result ${index} has no toolCallId`, { index });
    const hasOutput = output !== undefined;
    const hasError = error !== undefined;
    if (
      hasOutput === hasError ||
      (hasOutput && typeof output !== 'string') ||
      (hasError && typeof error !== 'string')
    )
      throw new RunError(
        'invalid_request',
        `tool result ${index} needs exactly one of output and error, a string`,
        {
          index,
          toolCallId,
        },
      );
    const result: HostToolResult = hasOutput ? { output: output as string } : { error: error as string };
    const earlier = results.get(toolCallId);
    if (earlier !== undefined && !sameResult(earlier, result))
      throw new RunError('invalid_request', `tool call ${toolCallId} has two different results`, {
        toolCallId,
      });
    results.set(toolCallId, result);
  }
  return results;
}

export function sameResult(a: HostToolResult, b: HostToolResult): boolean {
  if ('output' in a) return 'output' in b && a.output === b.output;
  return 'error' in b && a.error === b.error;
}

/** A host's output as stored on its tool call: the JSON it holds, or the text itself. */
export function parseOutput(output: string): unknown {
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
}
