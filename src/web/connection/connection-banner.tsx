import type { ConnectionView } from '../../react/index.ts';
import { useI18n } from '../i18n/index.ts';

/**
 * Says when the stream's connection is lost and being resumed. A dropped connection is not a stop:
 * the run goes on at the server and the page catches up from the last event it has.
 */
export function ConnectionBanner({
  connection,
  failure,
  onRetry,
}: {
  connection: ConnectionView;
  /** The failure in the page's language, when `connection.status` is `failed`. */
  failure: string;
  onRetry(): void;
}) {
  const { t } = useI18n();
  if (connection.status === 'reconnecting')
    return (
      <div className="connection-banner reconnecting" role="status" data-testid="connection-banner">
        <span className="spinner" aria-hidden="true" />
        {t('connection.reconnecting', { attempt: connection.attempt })}
      </div>
    );
  if (connection.status === 'reconnected')
    return (
      <div className="connection-banner reconnected" role="status" data-testid="connection-banner">
        {t('connection.reconnected')}
      </div>
    );
  if (connection.status === 'failed')
    return (
      <div className="connection-banner failed" role="alert" data-testid="connection-banner">
        {t('connection.failed', { message: failure })}{' '}
        <button type="button" onClick={onRetry}>
          {t('app.retry')}
        </button>
      </div>
    );
  return null;
}
