/**
 * `npm run bench:scale`: what running several instances on one PostgreSQL and one Redis costs and
 * gains, with real server processes (`startServerProcess`: the composition root of `npm start`, the
 * offline NovaShop demo model) on a fresh database and a Redis key prefix of their own:
 *
 * 1. RSS per open follower of a live run, on the run's owner and on another instance (which follows
 *    the shared log once, for all its readers), and whether a finished run's log leaves memory.
 * 2. Redis commands and PostgreSQL transactions and rows per run and per delta.
 * 3. Deltas/s with one and with two instances.
 * 4. Resume latency (Last-Event-ID a few events behind) on the owner and on another instance.
 *
 * Figures are printed with a baseline measured in the same run (K = 0 followers, one instance, the
 * owner, an idle window); the machine is shared and noisy, so only ratios mean much and nothing
 * here asserts a time. It checks only that streams were read whole, so it cannot time a broken server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL, testKeyPrefix } from '../src/bus/test-support/redis-for-tests.ts';
import { createRunEventDecoderStream } from '../src/protocol/index.ts';
import {
  createTestDatabase,
  postgresAvailable,
  TEST_POSTGRES_URL,
} from '../src/store/postgres/test-support/test-database.ts';
import {
  DEMO_TEXT,
  type Follower,
  type Instance,
  machineBusySeconds,
  openFollowers,
  processCpuSeconds,
  readRunStream,
  type SharedSetup,
  type StreamRead,
  startInstance,
  startRawSseProcess,
} from './scale/cluster.ts';
import {
  commandsBetween,
  PostgresCounters,
  type PostgresSnapshot,
  RedisCommandLog,
  type RedisSnapshot,
  redisSnapshot,
  rowsBetween,
} from './scale/counters.ts';
import { kb, mb, median, num, percentile, printNotes, printTable, ratio, sleep } from './scale/report.ts';

// ---------------------------------------------------------------------------------------------------
// Settings

/** The memory pair: one demo part every 500 ms, so a run streams ~45 s, longer than a measurement. */
const MEMORY_DELAY_MS = 500;
/** The paced pair (counts paced like a model's tokens, and resume latency): a part every 40 ms. */
const PACED_DELAY_MS = 40;
const FOLLOWER_COUNTS = [0, 200, 1000] as const;
/**
 * The processes of section 1 (the memory pair and the bare floor) run with V8's young generation held
 * at one size. By default V8 grows it with the allocation rate, and a thousand sockets written every
 * 500 ms allocate more than two hundred: from 200 to 1000 followers it grew 15 MB in the bare server
 * and 28 MB committed in runstream's, up to a cap per process (16 MB semi-spaces on Node 20), which
 * then reads as memory per connection. Capped at 1 MB semi-spaces (reached and touched whole in the warm-up),
 * the slope is what a connection holds.
 */
const MEMORY_V8_FLAGS = '--max-semi-space-size=1';
/** Opened and closed before the K = 0 baseline, so the first measured followers pay no warm-up. */
const WARM_FOLLOWERS = 20;
const FOLLOWER_SETTLE_MS = 1500;
const RSS_SAMPLES = 5;
const RSS_SAMPLE_GAP_MS = 100;
/** RunReplicas' default keep time for a finished run's copy (not configurable from the environment). */
const REPLICA_KEEP_MS = 60_000;
const COUNT_RUNS = 20;
const THROUGHPUT_CONCURRENCY = 20;
const THROUGHPUT_ROUND_MS = 4000;
const THROUGHPUT_WARM_MS = 1500;
const THROUGHPUT_ROUNDS = 3;
const RESUME_SAMPLES = 300;
const RESUME_BEHIND = 3;
const COLD_RUNS = 30;

// ---------------------------------------------------------------------------------------------------
// 1. Memory per follower

interface Memory {
  /** Median of VmRSS samples after a full GC in the child. */
  rss: number;
  /** V8 heap used plus external memory (Buffers) right after the GC. */
  heap: number;
  /** V8 heap committed (heapTotal) after the GC: pages V8 holds, used or not, part of the RSS. */
  committed: number;
  /** The young generation's share of `committed` (held at one size here, see MEMORY_V8_FLAGS). */
  young: number;
}

async function memoryOf(instance: Instance): Promise<Memory> {
  const afterGc = await instance.memoryAfterGc();
  await sleep(150);
  const samples: number[] = [];
  for (let index = 0; index < RSS_SAMPLES; index += 1) {
    samples.push(instance.rssBytes());
    await sleep(RSS_SAMPLE_GAP_MS);
  }
  return {
    rss: median(samples),
    heap: afterGc.heapUsed + afterGc.external,
    committed: afterGc.heapTotal,
    young: afterGc.youngGeneration,
  };
}

interface FollowerCost {
  side: string;
  points: { followers: number; memory: Memory }[];
  /** After every follower closed and the run was cancelled. */
  closed: Memory;
  /** The run's status just before the followers closed: it should still be running. */
  statusBeforeEnd: string;
  endedAt: number;
}

/** What the followers follow: a run's id, and how to end it once they closed. */
interface Followed {
  runId: string;
  end(): Promise<string>;
}

/** A slow run on `owner`, its starting request's stream dropped after one event (not one of the K). */
async function slowRun(owner: Instance): Promise<Followed> {
  const started = await owner.postMessage(await owner.newConversation());
  const runId = started.headers.get('x-runstream-run-id') ?? '';
  await readRunStream(started, { stopAfter: 1 });
  return {
    runId,
    async end() {
      const status = await owner.runStatus(runId);
      await owner.cancel(runId);
      return status;
    },
  };
}

/** K followers of `followed` on `target`, the target's memory at each K. */
async function followerCost(side: string, target: Instance, followed: Followed): Promise<FollowerCost> {
  for (const follower of await openFollowers(target, followed.runId, WARM_FOLLOWERS)) follower.close();
  await sleep(500);
  const open: Follower[] = [];
  const points: FollowerCost['points'] = [];
  for (const k of FOLLOWER_COUNTS) {
    open.push(...(await openFollowers(target, followed.runId, k - open.length)));
    await sleep(FOLLOWER_SETTLE_MS);
    const ended = open.filter((follower) => follower.ended).length;
    if (ended > 0) throw new Error(`${side}: ${ended} of ${open.length} followers ended early`);
    points.push({ followers: k, memory: await memoryOf(target) });
  }
  for (const follower of open) follower.close();
  const statusBeforeEnd = await followed.end();
  const endedAt = Date.now();
  await sleep(1000);
  return { side, points, closed: await memoryOf(target), statusBeforeEnd, endedAt };
}

/** Per follower between the first and the last K > 0: free of fixed costs. */
function marginal(cost: FollowerCost): Memory {
  const low = cost.points[1];
  const high = cost.points.at(-1);
  if (low === undefined || high === undefined)
    return { rss: Number.NaN, heap: Number.NaN, committed: Number.NaN, young: Number.NaN };
  const n = high.followers - low.followers;
  return {
    rss: (high.memory.rss - low.memory.rss) / n,
    heap: (high.memory.heap - low.memory.heap) / n,
    committed: (high.memory.committed - low.memory.committed) / n,
    young: (high.memory.young - low.memory.young) / n,
  };
}

function printFollowerCosts(floor: FollowerCost, costs: readonly FollowerCost[]): void {
  const rows: string[][] = [];
  const floorMarginal = marginal(floor);
  for (const cost of [floor, ...costs]) {
    const base = cost.points[0]?.memory ?? {
      rss: Number.NaN,
      heap: Number.NaN,
      committed: Number.NaN,
      young: Number.NaN,
    };
    for (const { followers, memory } of cost.points) {
      const per = (now: number, then: number) => (followers === 0 ? '' : kb((now - then) / followers));
      rows.push([
        cost.side,
        String(followers),
        mb(memory.rss),
        per(memory.rss, base.rss),
        mb(memory.young),
        mb(memory.heap),
        per(memory.heap, base.heap),
        per(memory.committed, base.committed),
        '',
      ]);
    }
    const low = cost.points[1]?.followers;
    const high = cost.points.at(-1)?.followers;
    const slope = marginal(cost);
    rows.push([
      cost.side,
      `${low}→${high}`,
      '',
      kb(slope.rss),
      '',
      '',
      kb(slope.heap),
      kb(slope.committed),
      cost === floor ? '1.00×' : ratio(slope.rss / floorMarginal.rss),
    ]);
  }
  printTable(
    [
      'followers on',
      'K',
      'RSS MB',
      'RSS Δ/follower KB',
      'young gen MB',
      'heap+ext MB',
      'heap+ext Δ/follower KB',
      'V8 committed Δ/follower KB',
      'RSS vs floor',
    ],
    rows,
    1,
  );
  const verdict = (bytes: number) => `${kb(bytes)} KB (${bytes <= 20 * 1024 ? 'within' : 'over'})`;
  for (const cost of costs) {
    const slope = marginal(cost);
    console.log(
      `   ${cost.side}: ${verdict(slope.rss)} RSS per follower against the goal of ≤ 20 KB beyond the shared ` +
        `log; ${kb(slope.rss - floorMarginal.rss)} KB above the bare node:http floor; retained heap+ext ` +
        `${kb(slope.heap)} KB, V8 heap committed ${kb(slope.committed)} KB`,
    );
  }
  console.log(
    `   the run was still streaming when the followers closed: ${costs.map((cost) => `${cost.side} ${cost.statusBeforeEnd}`).join(', ')}`,
  );
}

// ---------------------------------------------------------------------------------------------------
// 2. Commands and writes per run

interface Counters {
  redis: Redis;
  postgres: PostgresCounters;
  commands: RedisCommandLog;
}

interface Snapshot {
  redis: RedisSnapshot;
  postgres: PostgresSnapshot;
  /** The instances' commands since the previous snapshot (MONITOR), and how many other clients sent. */
  ours: Map<string, number>;
  others: number;
}

async function snapshot(counters: Counters): Promise<Snapshot> {
  const postgres = await counters.postgres.settledSnapshot();
  const redis = await redisSnapshot(counters.redis);
  return { redis, postgres, ...counters.commands.take() };
}

interface Window {
  seconds: number;
  /** The instances' Redis commands, `client|unblock` (invisible to MONITOR) from INFO, server-wide. */
  commands: Map<string, number>;
  redisTotal: number;
  /** Every client's commands, from INFO commandstats. */
  serverWide: number;
  othersSeen: number;
  commits: number;
  rows: Map<string, number>;
  rowsTotal: number;
}

function windowBetween(before: Snapshot, after: Snapshot): Window {
  const serverWide = commandsBetween(before.redis, after.redis);
  const commands = new Map(after.ours);
  const unblock = serverWide.get('client|unblock') ?? 0;
  if (unblock > 0) commands.set('client|unblock (server-wide)', unblock);
  const rows = rowsBetween(before.postgres, after.postgres);
  return {
    seconds: (after.postgres.at - before.postgres.at) / 1000,
    commands,
    redisTotal: [...commands.values()].reduce((sum, n) => sum + n, 0),
    serverWide: [...serverWide.values()].reduce((sum, n) => sum + n, 0),
    othersSeen: after.others,
    // The earlier snapshot's own pg_stat_user_tables query is one commit in the measured database.
    commits: after.postgres.commits - before.postgres.commits - 1,
    rows,
    rowsTotal: [...rows.values()].reduce((sum, n) => sum + n, 0),
  };
}

interface CountResult {
  label: string;
  runs: number;
  deltas: number;
  events: number;
  /** Cross-instance follows that ended without `done` and were resumed from their Last-Event-ID. */
  resumed: number;
  window: Window;
}

/**
 * Follows a run on `instance` from its start to its end as a client does: a stream that ends without
 * `done` (the instance's copy lost track of the shared log) is resumed with Last-Event-ID.
 */
async function followToEnd(instance: Instance, runId: string): Promise<StreamRead & { resumed: number }> {
  const whole: StreamRead & { resumed: number } = {
    status: 0,
    runId,
    deltas: 0,
    logged: 0,
    lastSeq: 0,
    finished: false,
    done: false,
    resumed: -1,
  };
  while (!whole.done && whole.resumed < 5) {
    whole.resumed += 1;
    const read = await readRunStream(await instance.follow(runId, whole.lastSeq));
    whole.status = read.status;
    whole.deltas += read.deltas;
    whole.logged += read.logged;
    whole.lastSeq = Math.max(whole.lastSeq, read.lastSeq);
    whole.finished ||= read.finished;
    whole.done = read.done || read.status === 204;
  }
  return whole;
}

/**
 * `conversations.length` complete demo runs at once, started alternately on `x` and `y`, each read to
 * the end on its owner and followed from the start on the other instance.
 */
async function countRuns(
  label: string,
  x: Instance,
  y: Instance,
  conversations: readonly string[],
  counters: Counters,
  before: Snapshot,
): Promise<{ result: CountResult; after: Snapshot }> {
  const reads = await Promise.all(
    conversations.map(async (conversationId, index) => {
      const owner = index % 2 === 0 ? x : y;
      const other = owner === x ? y : x;
      const response = await owner.postMessage(conversationId);
      const runId = response.headers.get('x-runstream-run-id') ?? '';
      const [own, cross] = await Promise.all([readRunStream(response), followToEnd(other, runId)]);
      if (!own.done || !cross.done || cross.lastSeq !== own.lastSeq || cross.logged !== own.logged)
        throw new Error(
          `${label}: run ${runId} was not read whole on both instances: ` +
            `${owner.name} ${JSON.stringify(own)}, ${other.name} ${JSON.stringify(cross)}`,
        );
      return { own, resumed: cross.resumed };
    }),
  );
  const after = await snapshot(counters);
  return {
    after,
    result: {
      label,
      runs: reads.length,
      deltas: reads.reduce((sum, read) => sum + read.own.deltas, 0),
      events: reads.reduce((sum, read) => sum + read.own.logged, 0),
      resumed: reads.reduce((sum, read) => sum + read.resumed, 0),
      window: windowBetween(before, after),
    },
  };
}

function printCounts(results: readonly CountResult[], idle: Window): void {
  const commands = [...new Set(results.flatMap((result) => [...result.window.commands.keys()]))];
  const perRun = (result: CountResult, n: number) => num(n / result.runs, 1);
  const perDelta = (result: CountResult, n: number) => num(n / result.deltas, 2);
  const idleShare = (result: CountResult, n: number) => (n / idle.seconds) * result.window.seconds;
  const row = (name: string, value: (result: CountResult) => number): string[] => [
    name,
    ...results.flatMap((result) => [perRun(result, value(result)), perDelta(result, value(result))]),
  ];
  const rows: string[][] = [
    ...commands.map((command) =>
      row(`redis ${command}`, (result) => result.window.commands.get(command) ?? 0),
    ),
    row('redis, all the instances sent', (result) => result.window.redisTotal),
    row('  idle baseline, same duration', (result) => idleShare(result, idle.redisTotal)),
    row('  (INFO, every client of Redis)', (result) => result.window.serverWide),
    row('pg commits (incl. read-only)', (result) => result.window.commits),
    row('  idle baseline, same duration', (result) => idleShare(result, idle.commits)),
    row('pg rows written (ins+upd+del)', (result) => result.window.rowsTotal),
    row('  idle baseline, same duration', (result) => idleShare(result, idle.rowsTotal)),
  ];
  printTable(
    ['per run / per delta', ...results.flatMap((result) => [`${result.label} /run`, '/delta'])],
    rows,
    1,
  );
  for (const result of results) {
    const tables = [...result.window.rows]
      .map(([table, n]) => `${table} ${num(n / result.runs, 1)}`)
      .join(', ');
    console.log(`   rows written per run, ${result.label}: ${tables || 'none'}`);
  }
  console.log(
    `   other Redis clients sent ${results.map((result) => num(result.window.othersSeen)).join(' and ')} ` +
      'commands during the two windows (left out above, except in the INFO row and client|unblock); ' +
      `cross-instance follows resumed after an end without done: ${results
        .map((result) => `${result.resumed} of ${result.runs}`)
        .join(' and ')}`,
  );
}

// ---------------------------------------------------------------------------------------------------
// 3. Deltas/s

interface Round {
  deltas: number;
  runs: number;
  seconds: number;
  /** CPU used over the round, in cores: the instance processes, the database's backends, Redis, this process. */
  instanceCores: number;
  postgresCores: number;
  redisCores: number;
  benchCores: number;
  /** The whole machine, every process (others' too). */
  machineCores: number;
}

/** C workers start demo runs round-robin over `instances` for `ms`, each reading its run to the end. */
async function deltaRound(
  instances: readonly Instance[],
  ms: number,
  counters: Pick<Counters, 'redis' | 'postgres'>,
): Promise<Round> {
  const backends = await counters.postgres.backendPids();
  const cpu = () => ({
    instances: instances.reduce((sum, instance) => sum + instance.cpuSeconds(), 0),
    postgres: backends.reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
    machine: machineBusySeconds(),
  });
  const redisBefore = (await redisSnapshot(counters.redis)).cpuSeconds;
  const before = cpu();
  const benchBefore = process.cpuUsage();
  let next = 0;
  let deltas = 0;
  let runs = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: THROUGHPUT_CONCURRENCY }, async () => {
      while (performance.now() - started < ms) {
        const instance = instances[next % instances.length] as Instance;
        next += 1;
        const read = await readRunStream(await instance.postMessage(await instance.newConversation()));
        if (!read.done || !read.finished) throw new Error(`${instance.name}: a run was not read whole`);
        deltas += read.deltas;
        runs += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const bench = process.cpuUsage(benchBefore);
  const after = cpu();
  return {
    deltas,
    runs,
    seconds,
    instanceCores: (after.instances - before.instances) / seconds,
    postgresCores: (after.postgres - before.postgres) / seconds,
    redisCores: ((await redisSnapshot(counters.redis)).cpuSeconds - redisBefore) / seconds,
    benchCores: (bench.user + bench.system) / 1e6 / seconds,
    machineCores: (after.machine - before.machine) / seconds,
  };
}

async function measureDeltaRates(
  one: readonly Instance[],
  two: readonly Instance[],
  counters: Pick<Counters, 'redis' | 'postgres'>,
): Promise<{ one: Round[]; two: Round[] }> {
  await deltaRound(one, THROUGHPUT_WARM_MS, counters);
  await deltaRound(two, THROUGHPUT_WARM_MS, counters);
  const rounds = { one: [] as Round[], two: [] as Round[] };
  for (let round = 0; round < THROUGHPUT_ROUNDS; round += 1) {
    const order = round % 2 === 0 ? (['one', 'two'] as const) : (['two', 'one'] as const);
    for (const which of order) {
      await sleep(300);
      rounds[which].push(await deltaRound(which === 'one' ? one : two, THROUGHPUT_ROUND_MS, counters));
    }
  }
  return rounds;
}

function printDeltaRates(rates: { one: Round[]; two: Round[] }): void {
  const rate = (round: Round) => round.deltas / round.seconds;
  const cores = (rounds: readonly Round[], pick: (round: Round) => number) =>
    num(median(rounds.map(pick)), 2);
  const row = (name: string, rounds: readonly Round[]) => [
    name,
    String(rounds.length),
    num(rounds.reduce((sum, round) => sum + round.runs, 0)),
    num(median(rounds.map(rate))),
    `${num(Math.min(...rounds.map(rate)))}–${num(Math.max(...rounds.map(rate)))}`,
    cores(rounds, (round) => round.instanceCores),
    cores(rounds, (round) => round.postgresCores),
    cores(rounds, (round) => round.redisCores),
    cores(rounds, (round) => round.benchCores),
    cores(rounds, (round) => round.machineCores),
  ];
  printTable(
    [
      'runs driven on',
      'rounds',
      'runs',
      'deltas/s (median)',
      'range',
      'CPU cores: instances',
      'pg',
      'redis',
      'bench',
      'machine',
    ],
    [row('1 instance', rates.one), row('2 instances', rates.two)],
    1,
  );
  const ratios = rates.two.map((round, index) => rate(round) / rate(rates.one[index] as Round));
  console.log(
    `   2 instances / 1 instance: ${ratio(median(rates.two.map(rate)) / median(rates.one.map(rate)))} ` +
      `(per round ${ratios.map((value) => value.toFixed(2)).join(', ')})`,
  );
}

// ---------------------------------------------------------------------------------------------------
// 4. Resume latency

interface TrackedRun {
  runId: string;
  lastSeq: number;
  finished: boolean;
  touchedOnOther: boolean;
  reading: Promise<StreamRead>;
}

/** A run started on `owner` whose stream this process keeps reading, so it knows the run's last seq. */
async function startTrackedRun(owner: Instance): Promise<TrackedRun> {
  const response = await owner.postMessage(await owner.newConversation());
  const run: TrackedRun = {
    runId: response.headers.get('x-runstream-run-id') ?? '',
    lastSeq: 0,
    finished: false,
    touchedOnOther: false,
    reading: Promise.resolve({} as StreamRead),
  };
  run.reading = readRunStream(response, {
    onEvent: (event) => {
      if ('seq' in event) run.lastSeq = Math.max(run.lastSeq, event.seq);
      if (event.type === 'run.finished') run.finished = true;
    },
  });
  while (run.lastSeq < RESUME_BEHIND + 2 && !run.finished) await sleep(5);
  return run;
}

/** Time from the request to the first replayed event of GET /v1/runs/{id}/events after `after`. */
async function timeResume(
  instance: Instance,
  runId: string,
  after: number,
): Promise<{ ms: number; seq: number }> {
  const started = performance.now();
  const response = await instance.follow(runId, after);
  if (response.status !== 200 || response.body === null)
    throw new Error(`${instance.name}: resume ${runId} after ${after}: ${response.status}`);
  const reader = response.body
    .pipeThrough(createRunEventDecoderStream('sse', { validate: false }))
    .getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`${instance.name}: resume ${runId} after ${after} ended without an event`);
      if ('seq' in value) return { ms: performance.now() - started, seq: value.seq };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

interface ResumeResult {
  owner: number[];
  otherWarm: number[];
  otherCold: number[];
  ownerAtCold: number[];
  /** Samples whose first event was not the one after Last-Event-ID. */
  mismatches: number;
}

async function measureResume(a: Instance, b: Instance): Promise<ResumeResult> {
  const result: ResumeResult = { owner: [], otherWarm: [], otherCold: [], ownerAtCold: [], mismatches: 0 };
  const tracked: TrackedRun[] = [];
  const sample = async (target: Instance, run: TrackedRun) => {
    const after = Math.max(0, run.lastSeq - RESUME_BEHIND);
    const { ms, seq } = await timeResume(target, run.runId, after);
    if (seq !== after + 1) result.mismatches += 1;
    return ms;
  };
  // Warm-up: both instances serve a few resumes first.
  let run = await startTrackedRun(a);
  tracked.push(run);
  for (let index = 0; index < 10; index += 1) await sample(index % 2 === 0 ? a : b, run);
  run.touchedOnOther = true;
  // Interleaved A B B A …, so drift hits both alike; runs are replaced as they finish.
  for (let index = 0; index < 2 * RESUME_SAMPLES; index += 1) {
    if (run.finished) {
      run = await startTrackedRun(a);
      tracked.push(run);
    }
    const onOwner = index % 4 === 0 || index % 4 === 3;
    if (onOwner) result.owner.push(await sample(a, run));
    else {
      const cold = !run.touchedOnOther;
      run.touchedOnOther = true;
      (cold ? result.otherCold : result.otherWarm).push(await sample(b, run));
    }
  }
  // First readers on B: runs B has never seen, so the request builds B's copy from the shared log.
  const fresh = await Promise.all(Array.from({ length: COLD_RUNS }, () => startTrackedRun(a)));
  tracked.push(...fresh);
  for (const [index, freshRun] of fresh.entries()) {
    if (index % 2 === 0) {
      result.otherCold.push(await sample(b, freshRun));
      result.ownerAtCold.push(await sample(a, freshRun));
    } else {
      result.ownerAtCold.push(await sample(a, freshRun));
      result.otherCold.push(await sample(b, freshRun));
    }
  }
  await Promise.all(tracked.map((trackedRun) => trackedRun.reading));
  return result;
}

function printResume(result: ResumeResult): void {
  const baseline = median(result.owner);
  const row = (name: string, samples: readonly number[], against: number) => [
    name,
    String(samples.length),
    percentile(samples, 0.5).toFixed(2),
    percentile(samples, 0.9).toFixed(2),
    ratio(percentile(samples, 0.5) / against),
  ];
  printTable(
    ['resume on', 'samples', 'p50 ms', 'p90 ms', 'p50 vs owner'],
    [
      row('A, the owner', result.owner, baseline),
      row('B, its copy already following', result.otherWarm, baseline),
      row('A, the owner (cold series)', result.ownerAtCold, median(result.ownerAtCold)),
      row('B, first reader there (cold)', result.otherCold, median(result.ownerAtCold)),
    ],
    1,
  );
  console.log(
    `   cross-instance / same-instance p50: ${ratio(median(result.otherWarm) / baseline)} (copy following), ` +
      `${ratio(median(result.otherCold) / median(result.ownerAtCold))} (first reader); ` +
      `${result.mismatches} samples started elsewhere than Last-Event-ID + 1`,
  );
}

// ---------------------------------------------------------------------------------------------------
// The bench

async function connectRedis(url: string): Promise<Redis | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch {
    redis.disconnect();
    return undefined;
  }
}

async function main(): Promise<number> {
  if (!(await postgresAvailable())) {
    console.log(
      `bench:scale needs PostgreSQL: nothing answers at ${TEST_POSTGRES_URL} (set RUNSTREAM_TEST_POSTGRES_URL)`,
    );
    return 1;
  }
  const redis = await connectRedis(TEST_REDIS_URL);
  if (redis === undefined) {
    console.log(
      `bench:scale needs Redis: nothing answers at ${TEST_REDIS_URL} (set RUNSTREAM_TEST_REDIS_URL)`,
    );
    return 1;
  }
  const benchStarted = performance.now();
  const database = await createTestDatabase('runstream_scale');
  const directory = mkdtempSync(join(tmpdir(), 'runstream-bench-scale-'));
  const keys = testKeyPrefix();
  const instances: Instance[] = [];
  let postgres: PostgresCounters | undefined;
  let commandLog: RedisCommandLog | undefined;
  try {
    const redisVersion = /^redis_version:(\S+)/m.exec(await redis.info('server'))?.[1] ?? '?';
    const pgVersion = await (async () => {
      const counters = await PostgresCounters.open(TEST_POSTGRES_URL, database.url, database.name);
      postgres = counters;
      return counters.version();
    })();
    console.log(
      `runstream bench:scale · node ${process.version} · ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length} ` +
        `· PostgreSQL ${pgVersion} · Redis ${redisVersion}`,
    );
    const setup: SharedSetup = {
      databaseUrl: database.url,
      redisUrl: TEST_REDIS_URL,
      keyPrefix: keys.prefix,
      directory,
    };
    // The first alone (it migrates the database and creates the demo user), the others at once.
    instances.push(await startInstance(setup, 'mem-a', MEMORY_DELAY_MS, MEMORY_V8_FLAGS));
    const others = await Promise.allSettled([
      startInstance(setup, 'mem-b', MEMORY_DELAY_MS, MEMORY_V8_FLAGS),
      startInstance(setup, 'paced-a', PACED_DELAY_MS),
      startInstance(setup, 'paced-b', PACED_DELAY_MS),
      startInstance(setup, 'fast-a', 0),
      startInstance(setup, 'fast-b', 0),
    ]);
    for (const started of others) if (started.status === 'fulfilled') instances.push(started.value);
    const failed = others.find((started) => started.status === 'rejected');
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
    const [memA, memB, pacedA, pacedB, fastA, fastB] = instances as [
      Instance,
      Instance,
      Instance,
      Instance,
      Instance,
      Instance,
    ];
    console.log(
      `setup: 6 server processes on database ${database.name} and Redis prefix ${keys.prefix}, each with its own ` +
        `SQLite file; lease ${process.env.RUNSTREAM_LEASE_MS ?? '10000 (default)'} ms; demo model ` +
        `"${DEMO_TEXT}" (a search, then a streamed answer). Pairs: mem-a/b RUNSTREAM_DEMO_DELAY_MS=` +
        `${MEMORY_DELAY_MS}, paced-a/b ${PACED_DELAY_MS}, fast-a/b 0.`,
    );
    // Conversations for section 2, made now so their writes are long flushed before it measures.
    const pacedConversations = await Promise.all(
      Array.from({ length: COUNT_RUNS }, () => pacedA.newConversation()),
    );
    const fastConversations = await Promise.all(
      Array.from({ length: COUNT_RUNS }, () => fastA.newConversation()),
    );

    // 1. ---------------------------------------------------------------------------------------------
    console.log(
      `\n1. Memory per open follower of a live run (GET /v1/runs/{id}/events from this process; ` +
        `K = ${FOLLOWER_COUNTS.join(', ')})`,
    );
    const raw = await startRawSseProcess(MEMORY_DELAY_MS, MEMORY_V8_FLAGS);
    instances.push(raw);
    const floorCost = await followerCost('bare node:http', raw, { runId: 'none', end: async () => 'n/a' });
    await raw.stop();
    const ownerCost = await followerCost('owner (mem-a)', memA, await slowRun(memA));
    const otherCost = await followerCost('other (mem-b)', memB, await slowRun(memA));
    printFollowerCosts(floorCost, [ownerCost, otherCost]);
    printNotes(
      `A run is started on mem-a and streams one demo part every ${MEMORY_DELAY_MS} ms; K followers of it are ` +
        `opened on mem-a (the owner, reading its live log) or on mem-b (which follows the shared Redis log once ` +
        `and serves every reader from that copy). ${WARM_FOLLOWERS} followers are opened and closed first, so ` +
        'the K = 0 baseline already holds the run (or its copy) and warm code. At each K, after ' +
        `${FOLLOWER_SETTLE_MS} ms: a full GC in the child (a bench-only preload, bench/scale/child-memory.mjs, ` +
        `on SIGUSR2), then the median of ${RSS_SAMPLES} VmRSS samples ${RSS_SAMPLE_GAP_MS} ms apart. ` +
        'Δ/follower = (value(K) − value(0)) / K; the 200→1000 row is the marginal cost, free of fixed costs ' +
        '(the first connections, pools). heap+ext is V8 heap used + external after the GC: the part the ' +
        'server holds in JS objects and Buffers; RSS adds native memory (sockets, HTTP parser, malloc) and ' +
        'the heap pages V8 keeps committed after the GC (V8 committed: heapTotal, used or free). ' +
        'The floor: a bare node:http process (bench/scale/raw-sse-child.ts) holding the same number of SSE ' +
        'streams, writing one pre-encoded frame to each at the same pace: what Node itself costs per ' +
        "connection, measured the same way in the same run. All three run with V8's young generation held " +
        `at one size (${MEMORY_V8_FLAGS}): by default V8 grows it with the allocation rate, which rises with ` +
        'the number of sockets written, so it would read as memory per connection (see MEMORY_V8_FLAGS).',
    );

    // 2. ---------------------------------------------------------------------------------------------
    console.log(
      `\n2. Redis commands and PostgreSQL work per run and per delta (${COUNT_RUNS} complete runs at once per ` +
        'pair, started alternately on its two instances, each also followed from the start on the other)',
    );
    commandLog = await RedisCommandLog.start(redis, keys.prefix);
    const counters: Counters = { redis, postgres: postgres as PostgresCounters, commands: commandLog };
    const start = await snapshot(counters);
    const paced = await countRuns(
      `paced ${PACED_DELAY_MS} ms`,
      pacedA,
      pacedB,
      pacedConversations,
      counters,
      start,
    );
    const fast = await countRuns('delay 0', fastA, fastB, fastConversations, counters, paced.after);
    const idleEnd = await snapshot(counters);
    const idle = windowBetween(fast.after, idleEnd);
    console.log(
      `   per run: ${num(paced.result.events / paced.result.runs, 1)} logged events, ` +
        `${num(paced.result.deltas / paced.result.runs, 1)} block.delta (delay 0: ` +
        `${num(fast.result.events / fast.result.runs, 1)} and ${num(fast.result.deltas / fast.result.runs, 1)})`,
    );
    commandLog.stop();
    commandLog = undefined;
    printCounts([paced.result, fast.result], idle);
    printNotes(
      'Redis: the commands the instances sent, from MONITOR on a Redis other clients share (a command is ' +
        "theirs when it names the bench's key prefix or comes from a connection that did; the commands the " +
        'append script runs (an xadd per event; an xrevrange on the first append of a stretch; a pexpire a minute), count as Redis counts them, as in INFO ' +
        'commandstats). MONITOR hides admin commands, so client|unblock (a new follower waking the blocking ' +
        'read) is the INFO commandstats difference, every client of Redis included. PostgreSQL: differences ' +
        'of pg_stat_database.xact_commit (every committed transaction, reads too) and pg_stat_user_tables ' +
        '(rows inserted + updated + deleted in the app tables) of the bench database alone. PostgreSQL 15 ' +
        'flushes statistics lazily (up to 10 s), so each snapshot waits 10.5 s after the activity; that wait ' +
        `lies inside the next window, hence the idle baseline beneath (a ${num(idle.seconds, 1)} s window ` +
        "with nothing running, scaled to each window's length): subtract it. Per delta divides by every " +
        'block.delta of the runs; the shared log is written per event, so the paced figures (about one event ' +
        'per append) are what a model streaming tokens costs, while at delay 0 an append carries a burst. ' +
        'Lease renewals (every third of the lease) and lease sweeps (every half lease, per instance) are in ' +
        'the counts.',
    );

    // 3. ---------------------------------------------------------------------------------------------
    console.log(
      `\n3. Deltas/s, 1 vs 2 instances (RUNSTREAM_DEMO_DELAY_MS=0, ${THROUGHPUT_CONCURRENCY} runs in flight, ` +
        `${THROUGHPUT_ROUNDS} rounds of ${THROUGHPUT_ROUND_MS / 1000} s each, interleaved)`,
    );
    const rates = await measureDeltaRates([fastA], [fastA, fastB], {
      redis,
      postgres: postgres as PostgresCounters,
    });
    printDeltaRates(rates);
    printNotes(
      `${THROUGHPUT_CONCURRENCY} workers in this process each create a conversation, post the demo message ` +
        'and read its stream to the end, again and again, on the instances in turn (round-robin); deltas/s = ' +
        'every block.delta received / wall time of the round. CPU: cores used on average over the round ' +
        '(/proc/<pid>/stat of the instance processes and of the PostgreSQL backends connected to the bench ' +
        "database, Redis's INFO cpu, this process, and /proc/stat for the whole machine, other users' work " +
        `included). This machine has ${cpus().length} cores for the instances, this client, Redis and ` +
        'PostgreSQL together: when "machine" is near that, the machine is the limit and the ratio says ' +
        'little about instances on machines of their own.',
    );

    // 4. ---------------------------------------------------------------------------------------------
    console.log(
      `\n4. Resume latency: GET /v1/runs/{id}/events with Last-Event-ID ${RESUME_BEHIND} events behind, until ` +
        `the first replayed event (runs on paced-a, RUNSTREAM_DEMO_DELAY_MS=${PACED_DELAY_MS})`,
    );
    printResume(await measureResume(pacedA, pacedB));
    printNotes(
      'A = paced-a, which drives the run; B = paced-b. Each sample is a new connection from this process, ' +
        'timed from the request to the first event decoded. "Copy already following": B had been asked for ' +
        'this run before, so its copy follows the shared log and a resume is served from memory there. ' +
        `"First reader": ${COLD_RUNS} fresh runs (plus each run of the main series), where the request makes ` +
        'B build its copy from Redis first; the A row beside it is timed on the same runs at the same moment.',
    );

    // 1b. --------------------------------------------------------------------------------------------
    const waitMs = Math.max(ownerCost.endedAt, otherCost.endedAt) + REPLICA_KEEP_MS + 3000 - Date.now();
    if (waitMs > 0) await sleep(waitMs);
    const sinceEnd = (Date.now() - Math.max(ownerCost.endedAt, otherCost.endedAt)) / 1000;
    console.log(
      `\n1b. Memory after the runs ended: does a finished run's log leave? (${num(sinceEnd, 0)} s after the ` +
        `last cancel; a finished run's copy is kept ${REPLICA_KEEP_MS / 1000} s)`,
    );
    const later = { owner: await memoryOf(memA), other: await memoryOf(memB) };
    const row = (cost: FollowerCost, now: Memory) => {
      const base = cost.points[0]?.memory;
      const peak = cost.points.at(-1)?.memory;
      return [
        cost.side,
        `${mb(base?.rss ?? Number.NaN)} / ${mb(base?.heap ?? Number.NaN)}`,
        `${mb(peak?.rss ?? Number.NaN)} / ${mb(peak?.heap ?? Number.NaN)}`,
        `${mb(cost.closed.rss)} / ${mb(cost.closed.heap)}`,
        `${mb(now.rss)} / ${mb(now.heap)}`,
      ];
    };
    printTable(
      ['instance', 'K=0 live run', `K=${FOLLOWER_COUNTS.at(-1)}`, 'closed + cancelled', 'after keep time'],
      [row(ownerCost, later.owner), row(otherCost, later.other)],
      1,
    );
    printNotes(
      'Each cell is RSS MB / heap+ext MB, after a forced GC as in section 1. "closed + cancelled": 1 s after ' +
        'the followers closed and the run was cancelled (run.finished, status cancelled). "after keep time": ' +
        'after the finished copy’s keep time passed, with no request for the run since. mem-a holds both runs ' +
        '(it drove them); mem-b the copy of the second. V8 and malloc keep freed pages, so RSS falling back ' +
        'only part way is expected; heap+ext is the figure that shows whether the logs and the followers’ ' +
        'objects were released.',
    );
    const logged = instances.flatMap((instance) => instance.problemLines());
    console.log(
      `\nserver logs: ${logged.length} error/warn lines from the instances` +
        (logged[0] !== undefined ? `, the first: ${logged[0].slice(0, 300)}` : ''),
    );
    console.log(
      `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, shared and noisy: compare the ratios ` +
        `within this run, not absolute figures across runs. Total ${num((performance.now() - benchStarted) / 1000, 0)} s.`,
    );
    return 0;
  } finally {
    commandLog?.stop();
    await Promise.allSettled(instances.map((instance) => instance.stop()));
    await postgres?.close();
    await database
      .drop()
      .catch((error: unknown) => console.error(`could not drop ${database.name}: ${error}`));
    rmSync(directory, { recursive: true, force: true });
    await keys
      .clear(redis)
      .catch((error: unknown) => console.error(`could not clear ${keys.prefix}: ${error}`));
    redis.disconnect();
  }
}

process.exitCode = await main();
// Undici may keep idle keep-alive sockets to the stopped servers open for a few seconds.
process.exit();
