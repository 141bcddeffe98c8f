import { useEffect, useRef, useState } from 'react';
import type { ChatItem } from '../../react/index.ts';
import { SentenceAnnouncer } from './sentence-announcer.ts';

/**
 * A visually hidden polite live region: streamed answers are read out a sentence at a time, and only
 * what arrives after the conversation was opened (a restored conversation is not read aloud again).
 */
export function LiveRegion({
  conversationKey,
  items,
}: {
  conversationKey: string;
  items: readonly ChatItem[];
}) {
  const announcer = useRef<{ key: string; announcer: SentenceAnnouncer } | null>(null);
  const [text, setText] = useState('');

  useEffect(() => {
    const blocks = items.flatMap((item) => (item.kind === 'assistant' ? item.state.blocks : []));
    if (announcer.current?.key !== conversationKey) {
      announcer.current = { key: conversationKey, announcer: new SentenceAnnouncer() };
      announcer.current.announcer.baseline(blocks);
      setText('');
      return;
    }
    const sentences = announcer.current.announcer.take(blocks);
    if (sentences.length > 0) setText(sentences.join(' '));
  }, [conversationKey, items]);

  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="live-region">
      {text}
    </div>
  );
}
