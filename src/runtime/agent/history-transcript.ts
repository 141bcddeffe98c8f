import type { ChatMessage } from '../../models/index.ts';
import type { StoredMessage } from '../../store/index.ts';

/** Earlier turns as the model sees them: the shopper's words and the assistant's answers. */
export function historyToTranscript(messages: readonly StoredMessage[]): ChatMessage[] {
  return messages.flatMap((message): ChatMessage[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.text }];
    const answer = message.message.blocks
      .filter((block) => block.kind === 'answer')
      .map((block) => (block.kind === 'answer' ? block.text : ''))
      .join('\n');
    return answer.length > 0 ? [{ role: 'assistant', content: answer }] : [];
  });
}
