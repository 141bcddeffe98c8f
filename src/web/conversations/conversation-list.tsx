import type { AgentSummary, ConversationSummary } from '../../client/index.ts';
import { useI18n } from '../i18n/index.ts';

export interface ConversationListProps {
  conversations: readonly ConversationSummary[];
  /** The server's agents: with more than one, each conversation says whose it is. */
  agents: readonly AgentSummary[];
  currentId: string | null;
  error: string | null;
  onOpen(id: string): void;
  onNew(): void;
}

/** The conversation list: a new-conversation button and the user's conversations, newest first. */
export function ConversationList({
  conversations,
  agents,
  currentId,
  error,
  onOpen,
  onNew,
}: ConversationListProps) {
  const { t } = useI18n();
  // A conversation without an agent id (an older server) is the default agent's.
  const agentName = (agentId: string | undefined) =>
    agents.length < 2 ? undefined : (agents.find((agent) => agent.id === agentId) ?? agents[0])?.name;
  return (
    <nav className="conversation-list" aria-label={t('conversations.heading')}>
      <button type="button" className="new-conversation" onClick={onNew} data-testid="new-conversation">
        + {t('conversations.new')}
      </button>
      {error !== null && (
        <p role="alert" className="notice notice-danger">
          {t('conversations.loadFailed', { message: error })}
        </p>
      )}
      {conversations.length === 0 && error === null ? (
        <p className="muted">{t('conversations.empty')}</p>
      ) : (
        <ul>
          {conversations.map((conversation) => {
            const name = agentName(conversation.agentId);
            return (
              <li key={conversation.id}>
                <a
                  href={`/c/${encodeURIComponent(conversation.id)}`}
                  aria-current={conversation.id === currentId ? 'page' : undefined}
                  data-testid="conversation-link"
                  onClick={(event) => {
                    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
                    event.preventDefault();
                    onOpen(conversation.id);
                  }}
                >
                  <span className="conversation-title">{conversation.title}</span>
                  {name !== undefined && (
                    <span className="conversation-agent muted" data-testid="conversation-agent">
                      <span className="visually-hidden">{t('agents.conversationAgentPrefix')}</span>
                      {name}
                    </span>
                  )}
                </a>
              </li>
            );
          })}
        </ul>
      )}
    </nav>
  );
}
