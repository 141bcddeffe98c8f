import { memo, type SyntheticEvent, useState } from 'react';
import type { TextBlock } from '../../protocol/index.ts';
import { type BlockText, formatSeconds, useBlockText } from '../text/index.ts';
import { blockRootProps } from './block-root-props.ts';
import { type BlockStyleProps, resolveClassNames } from './class-names.ts';

export interface ReasoningBlockProps extends BlockStyleProps {
  block: TextBlock;
}

/**
 * A reasoning block: a native disclosure, open while the model thinks and closed once it is done.
 * After the reader toggles it, their choice stays. The text is plain pre-wrapped text, never HTML.
 */
export const ReasoningBlock = memo(function ReasoningBlock({
  block,
  className,
  classNames,
}: ReasoningBlockProps) {
  const { t } = useBlockText();
  const names = resolveClassNames(classNames);
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? block.status === 'streaming';

  // `toggle` also fires when React changes `open`; only a change React did not make is the reader's.
  const onToggle = (event: SyntheticEvent<HTMLDetailsElement>) => {
    const shown = event.currentTarget.open;
    if (shown !== open) setChosen(shown);
  };

  return (
    <div {...blockRootProps(block, names, className)}>
      <details className={names.reasoning} open={open} onToggle={onToggle}>
        <summary className={names.reasoningSummary}>
          <span className={names.reasoningLabel}>{summaryOf(block, t)}</span>
        </summary>
        <div className={names.reasoningText}>{block.text}</div>
      </details>
    </div>
  );
});

function summaryOf(block: TextBlock, t: BlockText['t']): string {
  switch (block.status) {
    case 'streaming':
      return t('block.reasoning.streaming');
    case 'cancelled':
      return t('block.reasoning.stopped');
    case 'interrupted':
      return t('block.reasoning.interrupted');
    case 'done': {
      const ms = block.durationMs ?? (block.endedAt ?? block.startedAt) - block.startedAt;
      return t('block.reasoning.done', { seconds: formatSeconds(ms) });
    }
  }
}
