import { formatSeconds } from './block-messages.ts';
import type { BlockText } from './block-text.tsx';

/**
 * A tool's execution time as a person reads it: "1.2 秒", and for a call faster than the one decimal
 * can show, "不到 0.1 秒" (a lookup that took 3 ms did not take "0.0 秒").
 */
export function toolDurationText(milliseconds: number, t: BlockText['t']): string {
  if (milliseconds < 100) return t('units.underTenthSecond');
  return t('units.seconds', { seconds: formatSeconds(milliseconds) });
}
