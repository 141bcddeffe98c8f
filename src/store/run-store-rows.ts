import type { Message } from '../protocol/index.ts';
import { tokenIdOf } from './api-token.ts';
import type {
  Conversation,
  Decision,
  HostToolResult,
  RunRecord,
  RunStatus,
  StoredMessage,
  TokenInfo,
  ToolCallRecord,
  ToolCallStatus,
  User,
} from './run-store.ts';

/** Rows as the SQL stores return them (snake_case columns), and their mapping to the store's records. */

export interface UserRow {
  id: string;
  name: string;
  created_at: number;
}

export interface TokenRow {
  token_hash: string;
  user_id: string;
  label: string | null;
  created_at: number;
}

export interface ConversationRow {
  id: string;
  user_id: string;
  agent_id: string;
  title: string;
  created_at: number;
  updated_at: number;
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  role: 'user' | 'assistant';
  text: string | null;
  client_message_id: string | null;
  run_id: string | null;
  message: string | null;
  created_at: number;
}

export interface RunRow {
  id: string;
  conversation_id: string;
  message_id: string;
  user_id: string;
  status: string;
  cancel_reason: string | null;
  last_seq: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  stop_requested: string | null;
  agent_id: string | null;
  agent_revision: string | null;
  created_at: number;
  updated_at: number;
}

export interface ToolCallRow {
  run_id: string;
  tool_call_id: string;
  name: string;
  args: string | null;
  effect: string;
  status: string;
  decision: string | null;
  result: string | null;
  error: string | null;
  host_result: string | null;
  created_at: number;
  updated_at: number;
}

/** JSON text for a JSON column; `undefined` becomes SQL NULL, while `null` is stored as `'null'`. */
export function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** The inverse of `toJson`. The store wrote these columns itself, so they are not re-validated. */
export function fromJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}

export function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export function toTokenInfo(row: TokenRow): TokenInfo {
  return { id: tokenIdOf(row.token_hash), userId: row.user_id, label: row.label, createdAt: row.created_at };
}

export function toConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    userId: row.user_id,
    agentId: row.agent_id,
    title: row.title,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toStoredMessage(row: MessageRow): StoredMessage {
  if (row.role === 'assistant') {
    return {
      id: row.id,
      conversationId: row.conversation_id,
      role: 'assistant',
      runId: row.run_id ?? '',
      message: fromJson(row.message) as Message,
      createdAt: row.created_at,
    };
  }
  return {
    id: row.id,
    conversationId: row.conversation_id,
    role: 'user',
    text: row.text ?? '',
    createdAt: row.created_at,
    ...(row.client_message_id === null ? {} : { clientMessageId: row.client_message_id }),
  };
}

export function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    messageId: row.message_id,
    userId: row.user_id,
    status: row.status as RunStatus,
    cancelReason: row.cancel_reason,
    lastSeq: row.last_seq,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    stopRequested: row.stop_requested,
    agentId: row.agent_id,
    agentRevision: row.agent_revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toToolCallRecord(row: ToolCallRow): ToolCallRecord {
  const record: ToolCallRecord = {
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    name: row.name,
    args: fromJson(row.args),
    effect: row.effect as ToolCallRecord['effect'],
    status: row.status as ToolCallStatus,
    decision: (fromJson(row.decision) as Decision | undefined) ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.result !== null) record.result = fromJson(row.result);
  if (row.error !== null) record.error = fromJson(row.error) as { code: string; message: string };
  if (row.host_result !== null) record.hostResult = fromJson(row.host_result) as HostToolResult;
  return record;
}

/** The columns `toConversation` reads, in both SQL stores. */
export const CONVERSATION_COLUMNS = 'id, user_id, agent_id, title, created_at, updated_at';

/** `a, b` as `table.a, table.b`: a store's column list for a query that joins tables with the same column names. */
export function qualified(table: string, columns: string): string {
  return columns
    .split(',')
    .map((column) => `${table}.${column.trim()}`)
    .join(', ');
}
