import { useLayoutEffect, useRef } from 'react';
import { AssistantMessage, type ChatItem, type MessageActions } from '../../react/index.ts';
import { useI18n } from '../i18n/index.ts';
import { TimelineToggle } from '../timeline/index.ts';

export interface MessageListProps {
  items: readonly ChatItem[];
  actions: MessageActions;
  now: number;
  /** What an empty conversation says first: the agent's greeting, or the page's generic one. */
  greeting: string;
  /** The agent's example prompts; a click sends one. None while the agent is unknown. */
  examples: readonly string[];
  onExample?: (text: string) => void;
}

/** The conversation's messages; keeps the newest text in view unless the reader scrolled up. */
export function MessageList({ items, actions, now, greeting, examples, onExample }: MessageListProps) {
  const { t } = useI18n();
  const container = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  useLayoutEffect(() => {
    const element = container.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  });

  return (
    <div
      className="message-list"
      ref={container}
      data-testid="message-list"
      onScroll={(event) => {
        const element = event.currentTarget;
        pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
      }}
    >
      {items.length === 0 && (
        <div className="empty-chat">
          <p data-testid="greeting">{greeting}</p>
          {onExample && examples.length > 0 && (
            <>
              <p className="muted">{t('chat.examples')}</p>
              <ul className="examples" data-testid="examples">
                {examples.map((example) => (
                  <li key={example}>
                    <button type="button" onClick={() => onExample(example)}>
                      {example}
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      {items.map((item) =>
        item.kind === 'user' ? (
          <div key={item.key} className="user-message" data-testid="user-message">
            <span className="visually-hidden">{t('chat.you')}: </span>
            <p>{item.text}</p>
          </div>
        ) : (
          <AssistantMessage key={item.key} state={item.state} actions={actions}>
            <TimelineToggle message={item.state} now={now} />
          </AssistantMessage>
        ),
      )}
    </div>
  );
}
