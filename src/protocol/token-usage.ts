import { z } from 'zod';

/**
 * What model calls cost, as the provider reported it. `inputTokens` counts cached input too and
 * `outputTokens` counts reasoning too; the two details are present only where the provider reports
 * them. A run whose provider reports no usage has none: absent, never zeros.
 */
export const TokenUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Output tokens spent on reasoning, included in `outputTokens`. */
  reasoningTokens: z.number().int().nonnegative().optional(),
  /** Input tokens served from the provider's prompt cache, included in `inputTokens`. */
  cachedInputTokens: z.number().int().nonnegative().optional(),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/**
 * The sum of two usages. A detail (reasoning, cached input) is summed where either reports it and
 * stays absent where neither does, so "not reported" never turns into a zero.
 */
export function addTokenUsage(
  total: TokenUsage | undefined,
  usage: TokenUsage | undefined,
): TokenUsage | undefined {
  if (usage === undefined) return total;
  if (total === undefined) return { ...usage };
  const sum: TokenUsage = {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
  };
  const reasoningTokens = addDetail(total.reasoningTokens, usage.reasoningTokens);
  if (reasoningTokens !== undefined) sum.reasoningTokens = reasoningTokens;
  const cachedInputTokens = addDetail(total.cachedInputTokens, usage.cachedInputTokens);
  if (cachedInputTokens !== undefined) sum.cachedInputTokens = cachedInputTokens;
  return sum;
}

function addDetail(total: number | undefined, value: number | undefined): number | undefined {
  if (total === undefined) return value;
  return value === undefined ? total : total + value;
}
