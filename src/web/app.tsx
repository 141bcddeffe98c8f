import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { createRunstreamClient, type RunstreamClient } from '../client/index.ts';
import {
  ChatController,
  canStop,
  composerBlock,
  type MessageActions,
  type SourceEvidence,
} from '../react/index.ts';
import { AgentPicker } from './agents/index.ts';
import { currentAgent, selectedAgent } from './chat/current-agent.ts';
import { LiveRegion } from './chat/live-region.tsx';
import { MessageList } from './chat/message-list.tsx';
import { noticeText } from './chat/notice-text.ts';
import { useNow } from './chat/use-now.ts';
import { Composer } from './composer/index.ts';
import { ConnectionBanner } from './connection/index.ts';
import { ConversationList } from './conversations/index.ts';
import { ErrorBoundary } from './error-boundary.tsx';
import { I18nProvider, useI18n } from './i18n/index.ts';
import { SessionGate } from './session/index.ts';
import { SourceDrawer } from './sources/index.ts';

/** `/c/{id}` is a conversation; anything else (or an id that does not decode) is a new one. */
export function conversationIdFromPath(pathname: string): string | null {
  const match = /^\/c\/([^/]+)\/?$/.exec(pathname);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

export function App() {
  return (
    <I18nProvider>
      <ErrorBoundary>
        <SessionGate>
          {({ token, signOut }) => <ChatApp key={token} token={token} onUnauthorized={signOut} />}
        </SessionGate>
      </ErrorBoundary>
    </I18nProvider>
  );
}

function ChatApp({ token, onUnauthorized }: { token: string; onUnauthorized(): void }) {
  const { t, locale, setLocale } = useI18n();
  const client = useMemo<RunstreamClient>(
    () => createRunstreamClient({ baseUrl: globalThis.location.origin, token }),
    [token],
  );
  const controller = useMemo(
    () =>
      new ChatController({
        client,
        onUnauthorized,
        navigate: (path, { replace }) => {
          if (globalThis.location.pathname === path) return;
          if (replace) globalThis.history.replaceState(null, '', path);
          else globalThis.history.pushState(null, '', path);
        },
      }),
    [client, onUnauthorized],
  );
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  const [source, setSource] = useState<{
    citation: string;
    evidence: SourceEvidence | undefined;
    conversationId: string | null;
  } | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => {
    void controller.loadAgents();
    void controller.refreshConversations();
    void controller.openConversation(conversationIdFromPath(globalThis.location.pathname));
    const onPopState = () =>
      void controller.openConversation(conversationIdFromPath(globalThis.location.pathname));
    globalThis.addEventListener('popstate', onPopState);
    return () => {
      globalThis.removeEventListener('popstate', onPopState);
      controller.dispose();
    };
  }, [controller]);

  const { conversation } = snapshot;
  // Title, greeting and examples are the agent's; the generic ones only until it is known.
  const agent = currentAgent(snapshot);
  const title = agent?.ui.title ?? t('app.title');
  useEffect(() => {
    globalThis.document.title = title;
  }, [title]);
  const blockedBy = composerBlock(snapshot);
  const live = conversation.items.some(
    (item) =>
      item.kind === 'assistant' && (item.state.status === 'running' || item.state.status === 'paused'),
  );
  const now = useNow(live || snapshot.streaming);

  const actions = useMemo<MessageActions>(
    () => ({
      decide: (toolCallId, decision) => void controller.decide(toolCallId, decision),
      deciding: snapshot.deciding,
      decisionErrors: new Map(
        [...snapshot.decisionErrors].map(([toolCallId, notice]) => [toolCallId, noticeText(notice, t)]),
      ),
      openSource: (citation, evidence) => setSource({ citation, evidence, conversationId: conversation.id }),
    }),
    [controller, snapshot.deciding, snapshot.decisionErrors, t, conversation.id],
  );
  const closeSource = useCallback(() => setSource(null), []);

  const open = (id: string) => {
    setMenuOpen(false);
    if (id === conversation.id) return;
    globalThis.history.pushState(null, '', `/c/${encodeURIComponent(id)}`);
    void controller.openConversation(id);
  };

  return (
    <div className={`app${menuOpen ? ' menu-open' : ''}`}>
      <header className="app-header">
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen((value) => !value)}
        >
          <span aria-hidden="true">☰</span>
          <span className="visually-hidden">{t('app.menu')}</span>
        </button>
        <h1 data-testid="app-title">
          {title} <span className="muted subtitle">{t('app.subtitle')}</span>
        </h1>
        <button
          type="button"
          className="language-button"
          aria-label={t('app.languageLabel')}
          data-testid="language"
          onClick={() => setLocale(locale === 'zh-CN' ? 'en' : 'zh-CN')}
        >
          {t('app.language')}
        </button>
      </header>
      <aside id="sidebar" className="sidebar">
        <AgentPicker
          agents={snapshot.agents}
          selectedId={selectedAgent(snapshot)?.id}
          disabled={snapshot.sending}
          onSelect={(agentId) => {
            setMenuOpen(false);
            controller.selectAgent(agentId);
          }}
        />
        <ConversationList
          conversations={snapshot.conversations}
          agents={snapshot.agents}
          currentId={conversation.id}
          error={snapshot.conversationsError && noticeText(snapshot.conversationsError, t)}
          onOpen={open}
          onNew={() => {
            setMenuOpen(false);
            controller.newConversation();
          }}
        />
      </aside>
      <main className="chat" aria-busy={conversation.status === 'loading'}>
        <ConnectionBanner
          connection={snapshot.connection}
          failure={snapshot.connection.status === 'failed' ? noticeText(snapshot.connection.notice, t) : ''}
          onRetry={() => void controller.openConversation(conversation.id)}
        />
        {conversation.status === 'loading' && (
          <p className="chat-status" role="status">
            {t('chat.loading')}
          </p>
        )}
        {conversation.status === 'not_found' && (
          <p className="chat-status notice notice-danger" role="alert">
            {t('chat.notFound')}
          </p>
        )}
        {conversation.status === 'error' && (
          <p className="chat-status notice notice-danger" role="alert">
            {conversation.error && noticeText(conversation.error, t)}
          </p>
        )}
        <MessageList
          items={conversation.items}
          actions={actions}
          now={now}
          greeting={agent?.ui.greeting ?? t('chat.empty')}
          examples={agent?.ui.examples ?? []}
          {...(conversation.status === 'empty' && !snapshot.sending
            ? { onExample: (text: string) => void controller.send(text) }
            : {})}
        />
        <LiveRegion
          conversationKey={`${conversation.id ?? 'new'}:${conversation.status}`}
          items={conversation.items}
        />
        {conversation.status !== 'not_found' && (
          <Composer
            key={conversation.id ?? 'new'}
            blockedBy={blockedBy}
            notice={snapshot.composerNotice && noticeText(snapshot.composerNotice, t)}
            canStop={canStop(snapshot)}
            stopping={snapshot.stopping}
            onSend={(text) => controller.send(text)}
            onStop={() => void controller.stop()}
          />
        )}
      </main>
      {source !== null && (
        <SourceDrawer
          client={client}
          citation={source.citation}
          conversationId={source.conversationId}
          evidence={source.evidence}
          onClose={closeSource}
        />
      )}
    </div>
  );
}
