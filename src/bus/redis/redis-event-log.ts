import type { Redis } from 'ioredis';
import type { LoggedRunEvent } from '../../protocol/index.ts';
import {
  type AppendOptions,
  assertConsecutive,
  type EventLog,
  EventLogConflict,
  EventLogGap,
  type EventLogRead,
  endsStretch,
} from '../event-log.ts';

export interface RedisEventLogOptions {
  /** The command connection (appends, reads, expiry). */
  redis: Redis;
  /**
   * A second connection for the blocking reads, used by nothing else: an `XREAD BLOCK` holds its
   * connection until data arrives. The log closes it.
   */
  blocking: Redis;
  /** Prefix of every key. Default `runstream:`. */
  keyPrefix?: string;
  /** Entries kept per run (`XADD … MAXLEN ~`). Default 10,000. */
  capacity?: number;
  /** How long a run's stream stays after it ends. Default 10 minutes. */
  ttlMs?: number;
  /** A stream nobody ended (its owner died before the takeover) goes after this. Default 1 day. */
  idleTtlMs?: number;
  /** The longest one blocking read waits before it looks again. Default 5 s. */
  blockMs?: number;
}

/**
 * Appends a batch of entries `<seq>-0` atomically. ARGV: first seq, cap, TTL to set (0: leave it),
 * check (1: the first seq must continue the stream; 0: Redis's own rule that an id must exceed the
 * top is enough), then one JSON payload per event. Returns `{ last, 0 }`, or `{ -1, top }` on a
 * conflict. Within the script nothing interleaves, so only the first XADD can fail.
 */
const APPEND_SCRIPT = `
local first = tonumber(ARGV[1])
if ARGV[4] == '1' then
  local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #top > 0 then
    local last = tonumber(string.match(top[1][1], '^(%d+)'))
    if last ~= first - 1 then return {-1, last} end
  end
end
for index = 5, #ARGV do
  local added = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], (first + index - 5) .. '-0', 'e', ARGV[index])
  if type(added) == 'table' and added.err then
    local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
    return {-1, tonumber(string.match(top[1][1], '^(%d+)'))}
  end
end
if ARGV[3] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {first + #ARGV - 5, 0}
`;

type StreamEntry = [id: string, fields: string[]];

interface ScriptedRedis {
  runstreamAppend(key: string, ...args: (string | number)[]): Promise<unknown>;
}

interface Followed {
  /** The id after which the hub reads next. */
  lastId: string;
  listeners: Set<(entries: StreamEntry[] | null) => void>;
}

/**
 * The `EventLog` on Redis Streams: one stream per run, entry id `<seq>-0`, one JSON field per
 * entry, capped and expired after the run ends. Followers in this process share one blocking
 * connection: a single `XREAD BLOCK` covers every followed run, and a new follower interrupts it
 * (`CLIENT UNBLOCK`) so it is included at once. Each run's entries are read once per process and
 * handed to all its local followers.
 */
export class RedisEventLog implements EventLog {
  readonly #redis: Redis;
  readonly #blocking: Redis;
  readonly #prefix: string;
  readonly #capacity: number;
  readonly #ttlMs: number;
  readonly #idleTtlMs: number;
  readonly #blockMs: number;
  readonly #followed = new Map<string, Followed>();
  readonly #ttlRefreshedAt = new Map<string, number>();
  #blockingId: number | undefined;
  #hub: Promise<void> | undefined;
  /** Bumped by every new follower; the hub notes which generation its current read covers. */
  #generation = 0;
  #readingGeneration = 0;
  #closed = false;

  constructor(options: RedisEventLogOptions) {
    this.#redis = options.redis;
    this.#blocking = options.blocking;
    this.#prefix = options.keyPrefix ?? 'runstream:';
    this.#capacity = options.capacity ?? 10_000;
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#idleTtlMs = options.idleTtlMs ?? 24 * 60 * 60_000;
    this.#blockMs = options.blockMs ?? 5000;
    // EVALSHA with the script's digest, loaded on first use: the script text is not sent per append.
    if (!('runstreamAppend' in this.#redis))
      this.#redis.defineCommand('runstreamAppend', { numberOfKeys: 1, lua: APPEND_SCRIPT });
  }

  async append(runId: string, events: readonly LoggedRunEvent[], options: AppendOptions = {}): Promise<void> {
    const first = events[0];
    if (first === undefined) return;
    assertConsecutive(runId, events);
    // The idle TTL (a stream nobody ended goes after a day) is refreshed once a minute, not per append.
    const now = Date.now();
    const refreshTtl = now - (this.#ttlRefreshedAt.get(runId) ?? 0) > 60_000;
    const result = (await (this.#redis as unknown as ScriptedRedis).runstreamAppend(
      this.#key(runId),
      first.seq,
      this.#capacity,
      refreshTtl ? this.#idleTtlMs : 0,
      options.check === 'follows' ? 0 : 1,
      ...events.map((event) => JSON.stringify(event)),
    )) as [number, number];
    if (result[0] === -1) throw new EventLogConflict(runId, first.seq, result[1]);
    if (refreshTtl) this.#ttlRefreshedAt.set(runId, now);
  }

  async read(runId: string, afterSeq: number): Promise<EventLogRead> {
    const key = this.#key(runId);
    // One MULTI, so the entries, the oldest and the newest describe the same moment: read apart, an
    // append in between would make a whole tail look like a gap.
    const replies = await this.#redis
      .multi()
      .xrange(key, `(${afterSeq}-0`, '+')
      .xrange(key, '-', '+', 'COUNT', 1)
      .xrevrange(key, '+', '-', 'COUNT', 1)
      .exec();
    const [entries, oldest, newest] = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value as StreamEntry[];
    });
    const top = newest?.[0];
    const bottom = oldest?.[0];
    if (top === undefined || bottom === undefined) return { events: [], complete: false, lastSeq: null };
    const lastSeq = seqOf(top[0]);
    const complete = afterSeq >= lastSeq || seqOf(bottom[0]) <= afterSeq + 1;
    return { events: (entries ?? []).map(eventOf), complete, lastSeq };
  }

  async *follow(
    runId: string,
    afterSeq: number,
    options: { signal?: AbortSignal } = {},
  ): AsyncIterable<LoggedRunEvent> {
    const { signal } = options;
    const queue: (StreamEntry[] | null)[] = [];
    let wake: (() => void) | undefined;
    const listener = (entries: StreamEntry[] | null) => {
      queue.push(entries);
      wake?.();
    };
    const onAbort = () => wake?.();
    signal?.addEventListener('abort', onAbort);
    // Listen first, then read what the stream holds: nothing appended in between is missed, and
    // what both bring is skipped by seq.
    this.#listen(runId, `${afterSeq}-0`, listener);
    let cursor = afterSeq;
    let pending: LoggedRunEvent[] = (await this.#catchUp(runId, cursor)) ?? [];
    try {
      while (signal?.aborted !== true && !this.#closed) {
        for (const event of pending) {
          if (event.seq <= cursor) continue;
          if (event.seq !== cursor + 1) {
            // The shared read was ahead of this follower's backlog: fetch the stretch in between.
            const missing = await this.#catchUp(runId, cursor);
            if (missing === undefined || missing[0]?.seq !== cursor + 1) throw new EventLogGap(runId, cursor);
            pending = missing;
            break;
          }
          yield event;
          cursor = event.seq;
          if (endsStretch(event)) return;
        }
        if (pending.some((event) => event.seq > cursor)) continue;
        const batch = queue.shift();
        if (batch === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          pending = [];
          continue;
        }
        // `null`: the stream vanished under the follower (expired, or lost with Redis).
        if (batch === null) throw new EventLogGap(runId, cursor);
        pending = batch.map(eventOf);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#unlisten(runId, listener);
    }
  }

  /** The events after `afterSeq` the stream holds; throws a gap when it holds some but not the next. */
  async #catchUp(runId: string, afterSeq: number): Promise<LoggedRunEvent[] | undefined> {
    const backlog = await this.read(runId, afterSeq);
    if (!backlog.complete && backlog.lastSeq !== null) throw new EventLogGap(runId, afterSeq);
    return backlog.events;
  }

  async expire(runId: string): Promise<void> {
    this.#ttlRefreshedAt.delete(runId);
    await this.#redis.pexpire(this.#key(runId), this.#ttlMs);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const followed of this.#followed.values()) for (const listener of followed.listeners) listener(null);
    this.#followed.clear();
    this.#blocking.disconnect();
    await this.#hub?.catch(() => undefined);
  }

  #key(runId: string): string {
    return `${this.#prefix}run:${runId}:log`;
  }

  #listen(runId: string, fromId: string, listener: (entries: StreamEntry[] | null) => void): void {
    let followed = this.#followed.get(runId);
    if (followed === undefined) {
      followed = { lastId: fromId, listeners: new Set() };
      this.#followed.set(runId, followed);
    }
    followed.listeners.add(listener);
    this.#generation += 1;
    if (this.#hub === undefined) this.#hub = this.#runHub().finally(() => (this.#hub = undefined));
    else void this.#interruptHub(this.#generation);
  }

  #unlisten(runId: string, listener: (entries: StreamEntry[] | null) => void): void {
    const followed = this.#followed.get(runId);
    if (followed === undefined) return;
    followed.listeners.delete(listener);
    if (followed.listeners.size === 0) this.#followed.delete(runId);
  }

  /** One blocking read for every followed run, over and over while anyone follows. */
  async #runHub(): Promise<void> {
    while (!this.#closed && this.#followed.size > 0) {
      this.#readingGeneration = this.#generation;
      const runIds = [...this.#followed.keys()];
      const keys = runIds.map((runId) => this.#key(runId));
      const ids = runIds.map((runId) => this.#followed.get(runId)?.lastId ?? '0-0');
      let reply: [key: string, entries: StreamEntry[]][] | null;
      try {
        this.#blockingId ??= Number(await this.#blocking.client('ID'));
        reply = (await this.#blocking.xread(
          'COUNT',
          1000,
          'BLOCK',
          this.#blockMs,
          'STREAMS',
          ...keys,
          ...ids,
        )) as [string, StreamEntry[]][] | null;
      } catch (error) {
        if (this.#closed) return;
        // Unblocked to take in a new follower, or a dropped connection that ioredis re-opens (with a
        // new client id).
        if (!/UNBLOCKED/.test(String((error as Error).message))) {
          this.#blockingId = undefined;
          await delay(200);
        }
        continue;
      }
      for (const [key, entries] of reply ?? []) {
        const runId = runIds[keys.indexOf(key)];
        const followed = runId === undefined ? undefined : this.#followed.get(runId);
        const newest = entries[entries.length - 1];
        if (followed === undefined || newest === undefined) continue;
        followed.lastId = newest[0];
        for (const listener of followed.listeners) listener(entries);
      }
      // Only when nothing came: a stream vanishes rarely, and the hot path pays no extra command.
      if (reply === null) await this.#detectLostStreams(runIds);
    }
  }

  /** A followed stream that no longer exists was expired or lost: its followers must re-read. */
  async #detectLostStreams(runIds: readonly string[]): Promise<void> {
    const watched = runIds.filter((runId) => this.#followed.get(runId)?.lastId !== '0-0');
    if (watched.length === 0) return;
    const exists = await Promise.all(watched.map((runId) => this.#redis.exists(this.#key(runId))));
    watched.forEach((runId, index) => {
      if (exists[index] !== 0) return;
      const followed = this.#followed.get(runId);
      if (followed === undefined) return;
      this.#followed.delete(runId);
      for (const listener of followed.listeners) listener(null);
    });
  }

  /**
   * Until the hub's read covers `generation`: an UNBLOCK that reaches Redis just before the hub's
   * XREAD does nothing, so it is repeated (a few times at most) until the hub has looked again.
   */
  async #interruptHub(generation: number): Promise<void> {
    for (let attempt = 0; attempt < 50 && !this.#closed; attempt += 1) {
      if (this.#readingGeneration >= generation || this.#hub === undefined) return;
      if (this.#blockingId !== undefined)
        await this.#redis.client('UNBLOCK', this.#blockingId, 'ERROR').catch(() => undefined);
      await delay(2);
    }
  }
}

function seqOf(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

function eventOf(entry: StreamEntry): LoggedRunEvent {
  const [, fields] = entry;
  const json = fields[fields.indexOf('e') + 1];
  // The log holds only what the owner's run log stamped and serialised; not re-validated here.
  return JSON.parse(json ?? 'null') as LoggedRunEvent;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
