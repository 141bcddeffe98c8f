import '../../styles.css';
import { type FormEvent, StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { AssistantMessage, useRunstreamChat } from '../../index.ts';

/**
 * A page of the kind a front-end team writes with `runstream/react`: the hook, the message
 * component, a composer and a stop button, nothing else. The test reads its state from `data-*`
 * attributes. `?conversation=` opens a conversation; `?token=` is the bearer token; the address
 * keeps the conversation the first send created, so a reload restores it.
 */
function HookPage() {
  const params = new URLSearchParams(globalThis.location.search);
  const token = params.get('token') ?? undefined;
  const [conversationId, setConversationId] = useState(params.get('conversation'));
  const chat = useRunstreamChat({
    baseUrl: globalThis.location.origin,
    ...(token === undefined ? {} : { token }),
    headers: { 'x-hook-page': '1' },
    conversationId,
    onConversationCreated: (id) => {
      params.set('conversation', id);
      globalThis.history.replaceState(null, '', `?${params}`);
      // Handed back to the hook, which has it open already: no reload.
      setConversationId(id);
    },
  });
  const [text, setText] = useState('');

  // Every connection state the page went through, for the test.
  useEffect(() => {
    const page = globalThis as { connectionLog?: string[] };
    page.connectionLog ??= [];
    if (page.connectionLog.at(-1) !== chat.connection) page.connectionLog.push(chat.connection);
  }, [chat.connection]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await chat.send(text)) setText('');
  };
  const firstCard = chat.pendingConfirmations[0];

  return (
    <main
      data-testid="hook-page"
      data-status={chat.status}
      data-connection={chat.connection}
      data-conversation={chat.conversationId ?? ''}
      data-pending={chat.pendingConfirmations.length}
      data-error={chat.error?.code ?? ''}
    >
      {chat.messages.map((message) =>
        message.kind === 'user' ? (
          <p key={message.key} data-testid="user-message">
            {message.text}
          </p>
        ) : (
          <AssistantMessage key={message.key} state={message.state} actions={chat.actions} />
        ),
      )}
      <form onSubmit={submit}>
        <input data-testid="input" value={text} onChange={(event) => setText(event.target.value)} />
        <button type="submit" data-testid="send">
          send
        </button>
      </form>
      <button type="button" data-testid="stop" onClick={() => void chat.stop('customer_left')}>
        stop
      </button>
      {firstCard && (
        <button
          type="button"
          data-testid="reject-with-note"
          onClick={() => void chat.reject(firstCard.toolCallId, '再想想')}
        >
          reject
        </button>
      )}
    </main>
  );
}

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <HookPage />
  </StrictMode>,
);
