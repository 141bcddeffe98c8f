import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useI18n } from './i18n/index.ts';

/**
 * The last line of defence: a rendering error shows a sentence and a reload button instead of an
 * empty page. Runs are unaffected; a reload restores the conversation from the server.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error): { error: Error } {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('the page failed to render', error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.error === null ? (
      this.props.children
    ) : (
      <CrashNotice message={this.state.error.message} />
    );
  }
}

function CrashNotice({ message }: { message: string }) {
  const { t } = useI18n();
  return (
    <main className="session-screen" role="alert">
      <p>{t('app.crashed')}</p>
      <p className="muted mono">{message}</p>
      <button type="button" onClick={() => globalThis.location.reload()}>
        {t('app.reload')}
      </button>
    </main>
  );
}
