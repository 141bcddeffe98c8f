import { memo } from 'react';
import type { ToolBlock as ToolBlockData } from '../../protocol/index.ts';
import { toolDurationText, useBlockText } from '../text/index.ts';
import { blockRootProps } from './block-root-props.ts';
import { type BlockStyleProps, joinClassNames, resolveClassNames } from './class-names.ts';
import { toolTitle } from './tool-title.ts';

export interface ToolBlockProps extends BlockStyleProps {
  block: ToolBlockData;
  /**
   * What the row calls the tool; default `toolTitle(block)` (its title, else its name made
   * readable). `AssistantMessage` passes the confirmation card's title for a tool without one.
   */
  title?: string | undefined;
}

/**
 * One tool call as one row that changes in place (待执行 → 运行中 → 完成): the tool's title, a status
 * chip with text, and how long it ran once it ended ("不到 0.1 秒" for a fast one, never "0.0 秒").
 * The machine name, the arguments and the result or error are in the row's disclosure.
 */
export const ToolBlock = memo(function ToolBlock({ block, title, className, classNames }: ToolBlockProps) {
  const { t } = useBlockText();
  const names = resolveClassNames(classNames);
  const busy = block.status === 'pending' || block.status === 'running';
  const ended = block.endedAt !== null && block.durationMs !== null;
  const args = block.args !== undefined ? formatJson(block.args) : formatJsonText(block.argsText);
  const result = block.result !== undefined ? formatJson(block.result) : '';
  const error = block.error?.message ?? '';

  return (
    <div {...blockRootProps(block, names, className)}>
      <details className={names.toolDetails}>
        <summary className={names.toolRow}>
          {busy && <span className={names.toolSpinner} aria-hidden="true" />}
          <span className={names.toolHeading}>
            <span className={names.toolTitle}>{title ?? toolTitle(block)}</span>
          </span>
          <span className={names.toolMeta}>
            <span className={names.toolStatus} data-status={block.status}>
              {t(`block.tool.status.${block.status}`)}
            </span>
            {ended && (
              <span className={names.toolDuration}>{toolDurationText(block.durationMs ?? 0, t)}</span>
            )}
          </span>
        </summary>
        <div className={names.toolBody}>
          <div className={names.toolSection}>
            <div className={names.toolSectionTitle}>{t('block.tool.name')}</div>
            <code className={names.toolName}>{block.name}</code>
          </div>
          {args !== '' && (
            <div className={names.toolSection}>
              <div className={names.toolSectionTitle}>{t('block.tool.arguments')}</div>
              <pre className={names.toolCode}>
                <code>{args}</code>
              </pre>
            </div>
          )}
          {result !== '' && (
            <div className={names.toolSection}>
              <div className={names.toolSectionTitle}>{t('block.tool.result')}</div>
              <pre className={names.toolCode}>
                <code>{result}</code>
              </pre>
            </div>
          )}
          {error !== '' && (
            <div className={joinClassNames(names.toolSection, names.toolSectionError)}>
              <div className={names.toolSectionTitle}>{t('block.tool.error')}</div>
              <p className={names.toolError}>{error}</p>
            </div>
          )}
        </div>
      </details>
    </div>
  );
});

/** Pretty JSON; a string is shown as it is (a tool may return prose or Markdown). */
function formatJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Streamed argument text: pretty once it parses, else as it arrived (it may be half a JSON value). */
function formatJsonText(text: string): string {
  if (text.trim() === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
