import { memo } from 'react';
import type { ToolBlock as ToolBlockData } from '../../protocol/index.ts';
import { formatSeconds, useI18n } from '../i18n/index.ts';
import './blocks.css';
import { blockRootProps } from './block-root-props.ts';

/**
 * One tool call as one row that changes in place (待执行 → 运行中 → 完成): its title and machine name,
 * a status chip with text, the execution time once it ended, and a disclosure with the arguments and
 * the result or error.
 */
export const ToolBlock = memo(function ToolBlock({ block }: { block: ToolBlockData }) {
  const { t } = useI18n();
  const busy = block.status === 'pending' || block.status === 'running';
  const ended = block.endedAt !== null && block.durationMs !== null;
  const args = block.args !== undefined ? formatJson(block.args) : formatJsonText(block.argsText);
  const result = block.result !== undefined ? formatJson(block.result) : '';
  const error = block.error?.message ?? '';

  const row = (
    <>
      {busy && <span className="tool-spinner" aria-hidden="true" />}
      <span className="tool-heading">
        <span className="tool-title">{block.title || block.name}</span>{' '}
        <span className="tool-name">{block.name}</span>
      </span>
      <span className="tool-meta">
        <span className="tool-status" data-status={block.status}>
          {t(`block.tool.status.${block.status}`)}
        </span>
        {ended && (
          <span className="tool-duration">
            {t('units.seconds', { seconds: formatSeconds(block.durationMs ?? 0) })}
          </span>
        )}
      </span>
    </>
  );

  return (
    <div {...blockRootProps(block)}>
      {args === '' && result === '' && error === '' ? (
        <div className="tool-row">{row}</div>
      ) : (
        <details className="tool-details">
          <summary className="tool-row">{row}</summary>
          <div className="tool-body">
            {args !== '' && (
              <div className="tool-section">
                <div className="tool-section-title">{t('block.tool.arguments')}</div>
                <pre className="tool-code">
                  <code>{args}</code>
                </pre>
              </div>
            )}
            {result !== '' && (
              <div className="tool-section">
                <div className="tool-section-title">{t('block.tool.result')}</div>
                <pre className="tool-code">
                  <code>{result}</code>
                </pre>
              </div>
            )}
            {error !== '' && (
              <div className="tool-section tool-section-error">
                <div className="tool-section-title">{t('block.tool.error')}</div>
                <p className="tool-error">{error}</p>
              </div>
            )}
          </div>
        </details>
      )}
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
