import type { TokenUsage } from '../../protocol/index.ts';
import type { Locale, MessageKey } from '../i18n/messages.ts';

export type UsageTranslate = (key: MessageKey, params?: Record<string, string | number>) => string;

/**
 * The run's token usage as one line of the timeline: input and output, each with the detail the
 * provider reported (cached input, reasoning) and without the ones it did not. Counts are grouped
 * as the locale writes numbers.
 */
export function usageSummary(usage: TokenUsage, translate: UsageTranslate, locale: Locale): string {
  const number = new Intl.NumberFormat(locale);
  const count = (value: number) => number.format(value);
  const input =
    usage.cachedInputTokens === undefined
      ? translate('timeline.usage.input', { count: count(usage.inputTokens) })
      : translate('timeline.usage.inputCached', {
          count: count(usage.inputTokens),
          cached: count(usage.cachedInputTokens),
        });
  const output =
    usage.reasoningTokens === undefined
      ? translate('timeline.usage.output', { count: count(usage.outputTokens) })
      : translate('timeline.usage.outputReasoning', {
          count: count(usage.outputTokens),
          reasoning: count(usage.reasoningTokens),
        });
  return translate('timeline.usage', { input, output });
}
