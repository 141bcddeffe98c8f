import { useEffect, useRef, useState } from 'react';
import type { RunstreamClient } from '../../client/index.ts';
import { parseCitation, type SourceEvidence } from '../../react/index.ts';
import { useI18n } from '../i18n/index.ts';

interface SourceDocument {
  path: string;
  title: string;
  text: string;
}

/**
 * The cited knowledge document beside the chat: first the passage the answer was written from, its
 * matched clause marked (when the message's knowledge search returned one), then the whole file,
 * the cited line highlighted and scrolled into view. Text is shown as text: neither a passage nor a
 * knowledge file ever becomes HTML on the page.
 */
export function SourceDrawer({
  client,
  citation,
  conversationId,
  evidence,
  onClose,
}: {
  client: RunstreamClient;
  citation: string;
  /**
   * The conversation whose answer cited the source: the server resolves the path among that
   * conversation's agent's documents (two agents may both have a `knowledge/faq.md`).
   */
  conversationId: string | null;
  evidence?: SourceEvidence | undefined;
  onClose(): void;
}) {
  const { t } = useI18n();
  const { path, line, lineEnd } = parseCitation(citation);
  const [document, setDocument] = useState<SourceDocument | null>(null);
  const [error, setError] = useState<string | null>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const citedLine = useRef<HTMLLIElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    setDocument(null);
    setError(null);
    client
      .getJson(sourcePath(path, conversationId), { signal: abort.signal })
      .then((body) => {
        if (!isSourceDocument(body)) throw new Error('the server sent no document');
        setDocument(body);
      })
      .catch((reason: unknown) => {
        if (!abort.signal.aborted) setError(reason instanceof Error ? reason.message : String(reason));
      });
    return () => abort.abort();
  }, [client, path, conversationId]);

  useEffect(() => {
    const previous = globalThis.document.activeElement as HTMLElement | null;
    closeButton.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    globalThis.addEventListener('keydown', onKey);
    return () => {
      globalThis.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, [onClose]);

  useEffect(() => {
    if (document !== null) citedLine.current?.scrollIntoView({ block: 'center' });
  }, [document]);

  return (
    <aside className="source-drawer" aria-label={t('source.title')} data-testid="source-drawer">
      <header>
        <div>
          <h2>{document?.title ?? t('source.title')}</h2>
          <p className="muted mono">
            {path}
            {line !== null ? ` · ${t('source.line', { line })}` : ''}
          </p>
        </div>
        <button type="button" ref={closeButton} onClick={onClose}>
          {t('source.close')}
        </button>
      </header>
      {evidence !== undefined && <MatchedPassage evidence={evidence} />}
      {error !== null && (
        <p role="alert" className="notice notice-danger">
          {t('source.failed', { message: error })}
        </p>
      )}
      {document === null && error === null && <p role="status">{t('source.loading')}</p>}
      {document !== null && (
        <ol className="source-lines">
          {numberedLines(document.text).map(({ number, text }) => {
            const cited = line !== null && number >= line && number <= (lineEnd ?? line);
            return (
              <li
                key={number}
                ref={number === line ? citedLine : undefined}
                className={cited ? 'cited' : undefined}
              >
                {text === '' ? '\u00a0' : text}
              </li>
            );
          })}
        </ol>
      )}
    </aside>
  );
}

/** The passage with its matched clause in a `<mark>`; the passage alone when the clause is not in it. */
function MatchedPassage({ evidence }: { evidence: SourceEvidence }) {
  const { t } = useI18n();
  const at = evidence.context.indexOf(evidence.text);
  return (
    <section className="source-passage" aria-label={t('source.passage')} data-testid="source-passage">
      <p className="muted source-passage-section">{evidence.section}</p>
      <blockquote>
        {at === -1 ? (
          evidence.context
        ) : (
          <>
            {evidence.context.slice(0, at)}
            <mark>{evidence.text}</mark>
            {evidence.context.slice(at + evidence.text.length)}
          </>
        )}
      </blockquote>
    </section>
  );
}

/** `GET /v1/knowledge/sources` for `path`, within the conversation's agent when there is one. */
export function sourcePath(path: string, conversationId: string | null): string {
  const query = new URLSearchParams({ path });
  if (conversationId !== null) query.set('conversation_id', conversationId);
  return `/v1/knowledge/sources?${query}`;
}

function numberedLines(text: string): Array<{ number: number; text: string }> {
  return text.split('\n').map((line, index) => ({ number: index + 1, text: line }));
}

function isSourceDocument(body: unknown): body is SourceDocument {
  const candidate = body as Partial<SourceDocument> | null;
  return (
    typeof candidate?.path === 'string' &&
    typeof candidate.title === 'string' &&
    typeof candidate.text === 'string'
  );
}
