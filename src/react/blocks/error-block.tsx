import { memo } from 'react';
import type { TextBlock } from '../../protocol/index.ts';
import { useBlockText } from '../text/index.ts';
import { blockRootProps } from './block-root-props.ts';
import { type BlockStyleProps, type RunstreamClassNames, resolveClassNames } from './class-names.ts';

export interface ErrorNoticeProps {
  text: string;
  alert?: boolean;
  classNames?: Partial<RunstreamClassNames>;
}

/**
 * A visible error notice: a title and the readable message. Used for error blocks and failed runs.
 * Error blocks are read out by the page's live region when they arrive (not `role="alert"`, which
 * would announce every old error again each time a conversation is opened).
 */
export function ErrorNotice({ text, alert = false, classNames }: ErrorNoticeProps) {
  const { t } = useBlockText();
  const names = resolveClassNames(classNames);
  return (
    <div className={names.errorNotice} role={alert ? 'alert' : 'note'}>
      <span className={names.errorNoticeIcon} aria-hidden="true" />
      <div className={names.errorNoticeBody}>
        <strong className={names.errorNoticeTitle}>{t('block.error.title')}</strong>
        {text !== '' && <p className={names.errorNoticeText}>{text}</p>}
      </div>
    </div>
  );
}

export interface ErrorBlockProps extends BlockStyleProps {
  block: TextBlock;
}

/** An `error` block: the readable message the run ended with, as plain text. */
export const ErrorBlock = memo(function ErrorBlock({ block, className, classNames }: ErrorBlockProps) {
  const names = resolveClassNames(classNames);
  return (
    <div {...blockRootProps(block, names, className)}>
      <ErrorNotice text={block.text} classNames={names} />
    </div>
  );
});
