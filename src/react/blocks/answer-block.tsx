import { memo, useCallback, useEffect, useMemo, useRef } from 'react';
import type { TextBlock } from '../../protocol/index.ts';
import { citationFromHref, parseCitation } from '../markdown/link-citations.ts';
import { renderMarkdown } from '../markdown/render-markdown.ts';
import { useBlockText } from '../text/index.ts';
import { blockRootProps } from './block-root-props.ts';
import { type BlockStyleProps, resolveClassNames } from './class-names.ts';

export interface AnswerBlockProps extends BlockStyleProps {
  block: TextBlock;
  /**
   * A click on a citation link (`knowledge/policies/returns.md#L3`). Without it, citation links are
   * plain in-page links (`#source=…`).
   */
  openSource?: ((citation: string) => void) | undefined;
}

/**
 * An answer block: Markdown rendered and sanitised by `renderMarkdown`, re-rendered only when the
 * text (or the language of the citation labels) changes. A caret blinks at the end while it streams
 * (CSS, on `data-status="streaming"`); a stopped or interrupted answer says so after its text.
 * Citation links open the cited source instead of navigating.
 */
export const AnswerBlock = memo(function AnswerBlock({
  block,
  openSource,
  className,
  classNames,
}: AnswerBlockProps) {
  const { t } = useBlockText();
  const names = resolveClassNames(classNames);
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
    if (element === null || openSource === undefined) return;
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
    <div {...blockRootProps(block, names, className)}>
      <div
        ref={container}
        className={names.markdown}
        // biome-ignore lint/security/noDangerouslySetInnerHtml: renderMarkdown's output, sanitised by DOMPurify with a tight allow-list
        dangerouslySetInnerHTML={{ __html: html }}
      />
      {block.status === 'cancelled' && (
        <span className={names.answerMarker}>{t('block.answer.stopped')}</span>
      )}
      {block.status === 'interrupted' && (
        <span className={names.answerMarker}>{t('block.answer.interrupted')}</span>
      )}
    </div>
  );
});
