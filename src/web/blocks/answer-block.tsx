import { memo, useCallback, useEffect, useMemo, useRef } from 'react';
import type { TextBlock } from '../../protocol/index.ts';
import { useI18n } from '../i18n/index.ts';
import { citationFromHref, parseCitation } from '../markdown/link-citations.ts';
import { renderMarkdown } from '../markdown/render-markdown.ts';
import './blocks.css';
import { blockRootProps } from './block-root-props.ts';
import type { MessageActions } from './message-actions.ts';

export interface AnswerBlockProps {
  block: TextBlock;
  openSource: MessageActions['openSource'];
}

/**
 * An answer block: Markdown rendered and sanitised by `renderMarkdown`, re-rendered only when the
 * text (or the language of the citation labels) changes. A caret blinks at the end while it streams
 * (CSS, on `data-status="streaming"`); a stopped or interrupted answer says so after its text.
 * Citation links open the cited source instead of navigating.
 */
export const AnswerBlock = memo(function AnswerBlock({ block, openSource }: AnswerBlockProps) {
  const { t } = useI18n();
  const container = useRef<HTMLDivElement>(null);

  const citationLabel = useCallback(
    (citation: string) => {
      const { fileName, line } = parseCitation(citation);
      return line === null ? fileName : `${fileName} ${t('source.line', { line })}`;
    },
    [t],
  );
  const html = useMemo(() => renderMarkdown(block.text, { citationLabel }), [block.text, citationLabel]);

  // One delegated listener: the links are rebuilt with every delta, the container is not.
  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    const onClick = (event: MouseEvent) => {
      if (!(event.target instanceof Element)) return;
      const link = event.target.closest('a');
      if (link === null || !element.contains(link)) return;
      const citation = link.getAttribute('data-citation') ?? citationFromHref(link.getAttribute('href'));
      if (citation === null) return;
      event.preventDefault();
      openSource(citation);
    };
    element.addEventListener('click', onClick);
    return () => element.removeEventListener('click', onClick);
  }, [openSource]);

  return (
    <div {...blockRootProps(block)}>
      <div
        ref={container}
        className="markdown"
        // biome-ignore lint/security/noDangerouslySetInnerHtml: renderMarkdown's output, sanitised by DOMPurify with a tight allow-list
        dangerouslySetInnerHTML={{ __html: html }}
      />
      {block.status === 'cancelled' && <span className="answer-marker">{t('block.answer.stopped')}</span>}
      {block.status === 'interrupted' && (
        <span className="answer-marker">{t('block.answer.interrupted')}</span>
      )}
    </div>
  );
});
