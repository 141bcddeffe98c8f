// A support page as a front-end team writes it with the installed package: `useRunstreamChat`, the
// message component with its card replaced by one of the page's own around `ConfirmCard`, and the
// shipped stylesheet. The API is mounted at /support on the page's own origin. The address keeps the
// conversation the first send created, so a reload opens it again. The test reads `data-*` attributes.
import 'runstream/react/styles.css';
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { AssistantMessage, ConfirmCard, RunstreamTextProvider, useRunstreamChat } from 'runstream/react';

/** The shop's card: runstream's, with the shop's class on it. */
function ShopConfirmCard(props) {
  return <ConfirmCard {...props} className="shop-card" />;
}
const components = { confirm: ShopConfirmCard };

function SupportPage() {
  const params = new URLSearchParams(globalThis.location.search);
  const [conversationId, setConversationId] = useState(params.get('conversation'));
  const chat = useRunstreamChat({
    baseUrl: `${globalThis.location.origin}/support`,
    token: 'shopper-page',
    conversationId,
    onConversationCreated: (id) => {
      params.set('conversation', id);
      globalThis.history.replaceState(null, '', `?${params}`);
      setConversationId(id);
    },
  });
  const [text, setText] = useState('');

  const submit = async (event) => {
    event.preventDefault();
    if (await chat.send(text)) setText('');
  };

  return (
    <main
      data-testid="support-page"
      data-status={chat.status}
      data-connection={chat.connection}
      data-pending={chat.pendingConfirmations.length}
      data-error={chat.error?.code ?? ''}
    >
      {chat.messages.map((message) =>
        message.kind === 'user' ? (
          <p key={message.key} data-testid="user-message">
            {message.text}
          </p>
        ) : (
          <AssistantMessage
            key={message.key}
            state={message.state}
            actions={chat.actions}
            components={components}
          />
        ),
      )}
      <form onSubmit={submit}>
        <input data-testid="input" value={text} onChange={(event) => setText(event.target.value)} />
        <button type="submit" data-testid="send">
          Send
        </button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <RunstreamTextProvider locale="en">
      <SupportPage />
    </RunstreamTextProvider>
  </StrictMode>,
);
