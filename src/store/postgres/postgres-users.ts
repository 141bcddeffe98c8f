import type pg from 'pg';
import { generateApiToken, hashApiToken, tokenHashPrefixOf } from '../api-token.ts';
import { createId } from '../ids.ts';
import type { TokenInfo, User } from '../run-store.ts';
import { RunStoreError } from '../run-store-error.ts';
import { type TokenRow, toTokenInfo, toUser, type UserRow } from '../run-store-rows.ts';
import { notFound } from '../run-store-rules.ts';
import { FOREIGN_KEY_VIOLATION, isPostgresError } from './postgres-pool.ts';

/**
 * Users and their API tokens (stored hashed) in PostgreSQL, for `PostgresRunStore`, which delegates
 * to it: the rules are the `RunStore` conformance suite's, like the rest of the store.
 */
export class PostgresUsers {
  readonly #pool: pg.Pool;
  readonly #now: () => number;

  constructor(pool: pg.Pool, now: () => number) {
    this.#pool = pool;
    this.#now = now;
  }

  async createUser(name: string, options: { id?: string } = {}): Promise<User> {
    const user: User = { id: options.id ?? createId('usr'), name, createdAt: this.#now() };
    const inserted = await this.#pool.query(
      'INSERT INTO users (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
      [user.id, name, user.createdAt],
    );
    if (inserted.rowCount === 0)
      throw new RunStoreError('already_exists', `user ${user.id} already exists`, { existingId: user.id });
    return user;
  }

  async getUser(id: string): Promise<User | undefined> {
    const row = await this.#one<UserRow>('SELECT id, name, created_at FROM users WHERE id = $1', [id]);
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
    if ((await this.getUser(userId)) === undefined) throw notFound('user', userId);
    try {
      const inserted = await this.#pool.query(
        `INSERT INTO api_tokens (token_hash, user_id, label, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (token_hash) DO NOTHING`,
        [tokenHash, userId, label ?? null, this.#now()],
      );
      if (inserted.rowCount === 1) return;
    } catch (error) {
      if (isPostgresError(error, FOREIGN_KEY_VIOLATION)) throw notFound('user', userId);
      throw error;
    }
    const owner = await this.#one<{ user_id: string }>(
      'SELECT user_id FROM api_tokens WHERE token_hash = $1',
      [tokenHash],
    );
    // The demo token is added again at every start-up: for its own user that is a no-op.
    if (owner?.user_id !== userId)
      throw new RunStoreError('already_exists', 'that token belongs to another user');
  }

  async findUserByToken(token: string): Promise<User | undefined> {
    if (token.length === 0) return undefined;
    const row = await this.#one<UserRow>(
      `SELECT users.id, users.name, users.created_at FROM api_tokens
       JOIN users ON users.id = api_tokens.user_id WHERE api_tokens.token_hash = $1`,
      [hashApiToken(token)],
    );
    return row === undefined ? undefined : toUser(row);
  }

  async listUsers(): Promise<User[]> {
    const { rows } = await this.#pool.query<UserRow>(
      'SELECT id, name, created_at FROM users ORDER BY created_at, id',
    );
    return rows.map(toUser);
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    const { rows } = await this.#pool.query<TokenRow>(
      'SELECT token_hash, user_id, label, created_at FROM api_tokens WHERE user_id = $1 ORDER BY created_at, token_hash',
      [userId],
    );
    return rows.map(toTokenInfo);
  }

  async revokeToken(tokenId: string): Promise<boolean> {
    const prefix = tokenHashPrefixOf(tokenId);
    if (prefix === undefined) return false;
    const deleted = await this.#pool.query('DELETE FROM api_tokens WHERE substr(token_hash, 1, 16) = $1', [
      prefix,
    ]);
    return (deleted.rowCount ?? 0) > 0;
  }

  async #one<Row extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<Row | undefined> {
    return (await this.#pool.query<Row>(text, values)).rows[0];
  }
}
