import { memo } from 'react';
import type { TextBlock } from '../../protocol/index.ts';
import { useI18n } from '../i18n/index.ts';
import './blocks.css';
import { blockRootProps } from './block-root-props.ts';

/**
 * A visible error notice: a title and the readable message. Used for error blocks and failed runs.
 * Error blocks are read out by the page's live region when they arrive (not `role="alert"`, which
 * would announce every old error again each time a conversation is opened).
 */
export function ErrorNotice({ text, alert = false }: { text: string; alert?: boolean }) {
  const { t } = useI18n();
  return (
    <div className="error-notice" role={alert ? 'alert' : 'note'}>
      <span className="error-notice-icon" aria-hidden="true" />
      <div className="error-notice-body">
        <strong className="error-notice-title">{t('block.error.title')}</strong>
        {text !== '' && <p className="error-notice-text">{text}</p>}
      </div>
    </div>
  );
}

/** An `error` block: the readable message the run ended with, as plain text. */
export const ErrorBlock = memo(function ErrorBlock({ block }: { block: TextBlock }) {
  return (
    <div {...blockRootProps(block)}>
      <ErrorNotice text={block.text} />
    </div>
  );
});
