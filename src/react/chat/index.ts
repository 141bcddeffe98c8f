export { ChatController, type ChatControllerOptions } from './chat-controller.ts';
export {
  type ChatItem,
  type ChatSnapshot,
  type ConnectionView,
  type ConversationView,
  canStop,
  composerBlock,
  EMPTY_CONVERSATION,
  initialSnapshot,
  type Notice,
  toNotice,
} from './chat-snapshot.ts';
export { chatError, chatStatus, pendingConfirmationsOf, type RunstreamChatStatus } from './chat-status.ts';
export {
  type RunstreamChat,
  type RunstreamChatActions,
  type RunstreamChatConnection,
  type RunstreamChatEndpoint,
  type UseRunstreamChatOptions,
  useRunstreamChat,
} from './use-runstream-chat.ts';
