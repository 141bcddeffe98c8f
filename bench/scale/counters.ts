import type { Redis } from 'ioredis';
import pg from 'pg';
import { sleep } from './report.ts';

/** Redis's own counters at one moment (`INFO commandstats`, `INFO stats`, `INFO clients`, `INFO cpu`). */
export interface RedisSnapshot {
  /** Calls per command (`xadd`, `evalsha`, `client|unblock`, …), the bench's own `info` excluded. */
  calls: Map<string, number>;
  connectionsReceived: number;
  connectedClients: number;
  cpuSeconds: number;
}

export async function redisSnapshot(redis: Redis): Promise<RedisSnapshot> {
  const info = await redis.info('all');
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const [, command, count] = match;
    if (command !== undefined && command !== 'info') calls.set(command, Number(count));
  }
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return {
    calls,
    connectionsReceived: field('total_connections_received'),
    connectedClients: field('connected_clients'),
    cpuSeconds: field('used_cpu_user') + field('used_cpu_sys'),
  };
}

/** Commands called between two snapshots, most called first. */
export function commandsBetween(before: RedisSnapshot, after: RedisSnapshot): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [command, count] of after.calls) {
    const n = count - (before.calls.get(command) ?? 0);
    if (n > 0) delta.set(command, n);
  }
  return new Map([...delta].sort((a, b) => b[1] - a[1]));
}

/** The bench database's statistics at one moment. */
export interface PostgresSnapshot {
  at: number;
  /** `pg_stat_database.xact_commit`: every committed transaction, reads included. */
  commits: number;
  /** Rows inserted, updated and deleted in the application's tables, per table (`pg_stat_user_tables`). */
  tables: Map<string, number>;
}

/**
 * Reads `pg_stat_database` from a connection to another database (the admin one), so polling for
 * settled statistics adds no transactions to the measured database; `pg_stat_user_tables` needs a
 * connection to the measured database itself (one transaction per snapshot, reported by `ownCommits`).
 */
export class PostgresCounters {
  readonly #admin: pg.Client;
  readonly #local: pg.Client;
  readonly #name: string;
  /** Transactions this class itself ran in the measured database. */
  ownCommits = 0;

  private constructor(admin: pg.Client, local: pg.Client, name: string) {
    this.#admin = admin;
    this.#local = local;
    this.#name = name;
  }

  static async open(adminUrl: string, databaseUrl: string, name: string): Promise<PostgresCounters> {
    const admin = new pg.Client({ connectionString: adminUrl });
    const local = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await local.connect();
    return new PostgresCounters(admin, local, name);
  }

  /** `server_version`, e.g. `15.20 (Debian …)`, short. */
  async version(): Promise<string> {
    const { rows } = await this.#admin.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return (rows[0]?.v ?? '?').split(' ')[0] ?? '?';
  }

  async #commits(): Promise<number> {
    // Each query is its own transaction: no statistics snapshot is cached between two of them.
    const { rows } = await this.#admin.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
      [this.#name],
    );
    return Number(rows[0]?.n ?? Number.NaN);
  }

  /** Process ids of the backends connected to the measured database now (the instances' pools). */
  async backendPids(): Promise<number[]> {
    const { rows } = await this.#admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.#name],
    );
    return rows.map((row) => row.pid);
  }

  /**
   * A snapshot once the statistics caught up. A PostgreSQL 15 backend flushes its statistics at most
   * once a second; what it could not flush when it went idle waits for its idle timeout, 10 s. So
   * wait `settleMs` after the activity, then until two readings 500 ms apart agree (at most 3 s more).
   */
  async settledSnapshot(settleMs = 10_500): Promise<PostgresSnapshot> {
    await sleep(settleMs);
    const deadline = Date.now() + 3000;
    let commits = await this.#commits();
    for (;;) {
      await sleep(500);
      const next = await this.#commits();
      const stable = next === commits;
      commits = next;
      if (stable || Date.now() > deadline) break;
    }
    const { rows } = await this.#local.query<{ relname: string; n: string }>(
      'SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables',
    );
    this.ownCommits += 1;
    return {
      at: Date.now(),
      commits,
      tables: new Map(rows.map((row) => [row.relname, Number(row.n)])),
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#admin.end(), this.#local.end()]);
  }
}

/** Rows written per table between two snapshots, most first. */
export function rowsBetween(before: PostgresSnapshot, after: PostgresSnapshot): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [table, count] of after.tables) {
    const n = count - (before.tables.get(table) ?? 0);
    if (n > 0) delta.set(table, n);
  }
  return new Map([...delta].sort((a, b) => b[1] - a[1]));
}

/**
 * Redis commands attributed to the bench's instances, from MONITOR, for a Redis shared with other
 * users (INFO commandstats counts every client's). A command is ours when its arguments hold the
 * bench's key prefix (keys, channels; the commands a script runs show as from `lua`), or when it came
 * from a connection that sent such a command. MONITOR does not show admin commands (`client|unblock`):
 * those only INFO commandstats counts, server-wide.
 */
export class RedisCommandLog {
  readonly #prefix: string;
  readonly #monitor: Redis;
  /** Commands holding the prefix, since the last `take`. */
  #prefixed = new Map<string, number>();
  /** Other commands per connection, since the last `take`. */
  #unprefixed = new Map<string, Map<string, number>>();
  /** Connections that sent a command holding the prefix (ever). */
  readonly #ours = new Set<string>();

  private constructor(monitor: Redis, prefix: string) {
    this.#monitor = monitor;
    this.#prefix = prefix;
    monitor.on('monitor', (_time: string, args: string[], source: string) => this.#see(args, source));
  }

  static async start(redis: Redis, prefix: string): Promise<RedisCommandLog> {
    return new RedisCommandLog(await redis.monitor(), prefix);
  }

  #see(args: readonly string[], source: string): void {
    const name = (args[0] ?? '?').toLowerCase();
    // The bench's own INFO snapshots.
    if (name === 'info') return;
    const command =
      name === 'client' || name === 'config' ? `${name}|${(args[1] ?? '').toLowerCase()}` : name;
    if (args.some((arg) => arg.includes(this.#prefix))) {
      if (source !== 'lua') this.#ours.add(source);
      this.#prefixed.set(command, (this.#prefixed.get(command) ?? 0) + 1);
      return;
    }
    let counts = this.#unprefixed.get(source);
    if (counts === undefined) {
      counts = new Map();
      this.#unprefixed.set(source, counts);
    }
    counts.set(command, (counts.get(command) ?? 0) + 1);
  }

  /** The instances' commands since the last take (most first), and how many others were seen. */
  take(): { ours: Map<string, number>; others: number } {
    const ours = new Map(this.#prefixed);
    let others = 0;
    for (const [source, counts] of this.#unprefixed)
      for (const [command, n] of counts) {
        if (this.#ours.has(source)) ours.set(command, (ours.get(command) ?? 0) + n);
        else others += n;
      }
    this.#prefixed = new Map();
    this.#unprefixed = new Map();
    return { ours: new Map([...ours].sort((a, b) => b[1] - a[1])), others };
  }

  stop(): void {
    this.#monitor.disconnect();
  }
}
