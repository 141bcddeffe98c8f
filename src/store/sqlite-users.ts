import type { Statement } from 'better-sqlite3';
import { generateApiToken, hashApiToken, tokenHashPrefixOf } from './api-token.ts';
import { createId } from './ids.ts';
import type { TokenInfo, User } from './run-store.ts';
import { RunStoreError } from './run-store-error.ts';
import { type TokenRow, toTokenInfo, toUser, type UserRow } from './run-store-rows.ts';
import { notFound } from './run-store-rules.ts';

/**
 * Users and their API tokens (stored hashed) in the SQLite file, for `SqliteRunStore`, which
 * delegates to it and shares its prepared statements and IMMEDIATE transactions; the rules are the
 * `RunStore` conformance suite's, like the rest of the store (the PostgreSQL twin: `PostgresUsers`).
 */
export class SqliteUsers {
  readonly #sql: (source: string) => Statement;
  readonly #immediate: <T>(work: () => T) => T;
  readonly #now: () => number;

  constructor(sql: (source: string) => Statement, immediate: <T>(work: () => T) => T, now: () => number) {
    this.#sql = sql;
    this.#immediate = immediate;
    this.#now = now;
  }

  async createUser(name: string, options: { id?: string } = {}): Promise<User> {
    const user: User = { id: options.id ?? createId('usr'), name, createdAt: this.#now() };
    this.#immediate(() => {
      if (this.#sql('SELECT 1 FROM users WHERE id = ?').get(user.id) !== undefined)
        throw new RunStoreError('already_exists', `user ${user.id} already exists`, { existingId: user.id });
      this.#sql('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)').run(
        user.id,
        name,
        user.createdAt,
      );
    });
    return user;
  }

  async getUser(id: string): Promise<User | undefined> {
    const row = this.#sql('SELECT id, name, created_at FROM users WHERE id = ?').get(id) as
      | UserRow
      | undefined;
    return row === undefined ? undefined : toUser(row);
  }

  async issueToken(userId: string, label?: string): Promise<string> {
    const token = generateApiToken();
    await this.addToken(userId, token, label);
    return token;
  }

  async addToken(userId: string, token: string, label?: string): Promise<void> {
    if (token.length === 0) throw new RunStoreError('invalid_argument', 'a token cannot be empty');
    const tokenHash = hashApiToken(token);
    this.#immediate(() => {
      this.requireUser(userId);
      const owner = this.#sql('SELECT user_id FROM api_tokens WHERE token_hash = ?').get(tokenHash) as
        | { user_id: string }
        | undefined;
      // The demo token is added again at every start-up: for its own user that is a no-op.
      if (owner?.user_id === userId) return;
      if (owner !== undefined)
        throw new RunStoreError('already_exists', 'that token belongs to another user');
      this.#sql('INSERT INTO api_tokens (token_hash, user_id, label, created_at) VALUES (?, ?, ?, ?)').run(
        tokenHash,
        userId,
        label ?? null,
        this.#now(),
      );
    });
  }

  async findUserByToken(token: string): Promise<User | undefined> {
    if (token.length === 0) return undefined;
    const row = this.#sql(
      `SELECT users.id, users.name, users.created_at FROM api_tokens
       JOIN users ON users.id = api_tokens.user_id WHERE api_tokens.token_hash = ?`,
    ).get(hashApiToken(token)) as UserRow | undefined;
    return row === undefined ? undefined : toUser(row);
  }

  async listUsers(): Promise<User[]> {
    const rows = this.#sql(
      'SELECT id, name, created_at FROM users ORDER BY created_at, id',
    ).all() as UserRow[];
    return rows.map(toUser);
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    const rows = this.#sql(
      'SELECT token_hash, user_id, label, created_at FROM api_tokens WHERE user_id = ? ORDER BY created_at, token_hash',
    ).all(userId) as TokenRow[];
    return rows.map(toTokenInfo);
  }

  async revokeToken(tokenId: string): Promise<boolean> {
    const prefix = tokenHashPrefixOf(tokenId);
    if (prefix === undefined) return false;
    const { changes } = this.#sql('DELETE FROM api_tokens WHERE substr(token_hash, 1, 16) = ?').run(prefix);
    return changes > 0;
  }

  /** `not_found` unless the user exists; inside the caller's transaction. */
  requireUser(userId: string): void {
    if (this.#sql('SELECT 1 FROM users WHERE id = ?').get(userId) === undefined)
      throw notFound('user', userId);
  }
}
