import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeRerankServer } from '../retrieval/test-support/index.ts';
import { KB_USAGE, kbCommand } from './kb-command.ts';
import { main } from './main.ts';
import { type CommandResult, runCommand, runCommandProcess } from './test-support/run-command.ts';
import { UsageError } from './usage-error.ts';

const KNOWLEDGE = new URL('../../examples/novashop/knowledge', import.meta.url).pathname;
/** NovaShop's own synonym table: the demo corpus is searched with it, as `npm run eval:retrieval` does. */
const SYNONYMS = new URL('../../examples/novashop/synonyms.txt', import.meta.url).pathname;
let directory: string;
let database: string;

/** `runstream kb …` on the test's database, run in this process (the smoke test below starts the real one). */
async function runstream(...args: string[]): Promise<CommandResult> {
  return runstreamWith({}, ...args);
}

/** The command with these environment variables added to the test's own. */
async function runstreamWith(env: Record<string, string>, ...args: string[]): Promise<CommandResult> {
  return runCommand([...args, '--db', database], { env });
}

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-cli-'));
  database = join(directory, 'runstream.db');
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

// Each test runs the command several times over the demo corpus (segmenting, indexing): on two busy
// cores that can take longer than the suite's default timeout, which is a guard against a hang, not a
// measure of speed.
describe('runstream kb', { timeout: 120_000 }, () => {
  it('ingests the demo knowledge in a process of its own, then finds nothing new on a second run', async () => {
    // The command as a newcomer types it, through bin/runstream.mjs; the other calls run in-process.
    const first = await runCommandProcess(['kb', 'ingest', KNOWLEDGE, '--db', database]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/documents: 16 added, 0 changed, 0 unchanged, 0 removed/);
    const second = await runstream('kb', 'ingest', KNOWLEDGE);
    expect(second.stdout).toMatch(/documents: 0 added, 0 changed, 16 unchanged, 0 removed/);
    expect(second.stdout).toMatch(/chunks: +0 added/);
  });

  it('searches for people and, with --json, one object per line, best first', async () => {
    const human = await runstream(
      'kb',
      'search',
      '这双鞋七天内能退吗？',
      '--top-k',
      '3',
      '--synonyms',
      SYNONYMS,
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^1\. .*7 个自然日/m);
    expect(human.stdout).toMatch(/\(examples\/novashop\/knowledge\/[a-z0-9/-]+\.(md|json)#L\d+\)/);
    const json = await runstream('kb', 'search', 'NS-X2-BLK-M 什么时候发货', '--json', '--top-k', '4');
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(4);
    expect(Object.keys(lines[0]).sort()).toEqual(
      [
        'chunkId',
        'context',
        'contextLines',
        'docId',
        'headingPath',
        'highlights',
        'lanes',
        'lowEvidence',
        'score',
        'source',
        'text',
        'title',
      ].sort(),
    );
    expect(lines[0].text).toContain('NS-X2-BLK-M');
    // Each hit's clause is inside its context, where its first highlight says, and no two hits
    // share a passage.
    for (const hit of lines) {
      const [first] = hit.highlights;
      expect(hit.context.slice(first.start, first.end)).toBe(hit.text);
    }
    expect(new Set(lines.map((hit: { context: string }) => hit.context)).size).toBe(lines.length);
    // With the n-gram lane off, only lanes that are on rank the hits.
    const keywordsOnly = await runstream('kb', 'search', '七天能退吗', '--json', '--weights', 'ngram=0');
    for (const line of keywordsOnly.stdout.trim().split('\n'))
      expect(JSON.parse(line).lanes.ngram).toBeUndefined();
    // Ranks alone with --score-share 0: each score is Σ weight / (60 + rank) over the hit's lanes; by
    // default the lanes' relative scores add to it.
    const rankOnly = await runstream('kb', 'search', '七天能退吗', '--json', '--score-share', '0');
    const withShare = await runstream('kb', 'search', '七天能退吗', '--json');
    const defaultWeights: Record<string, number> = { exact: 2, ngram: 1, bm25: 0.3 };
    const parsed = (output: string) =>
      output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { score: number; lanes: Record<string, { rank: number }> });
    for (const hit of parsed(rankOnly.stdout)) {
      const ranks = Object.entries(hit.lanes).reduce(
        (sum, [lane, { rank }]) => sum + (defaultWeights[lane] ?? 0) / (60 + rank),
        0,
      );
      expect(hit.score).toBeCloseTo(ranks, 12);
    }
    const [topWithShare] = parsed(withShare.stdout);
    const rankPart = Object.entries(topWithShare?.lanes ?? {}).reduce(
      (sum, [lane, { rank }]) => sum + (defaultWeights[lane] ?? 0) / (60 + rank),
      0,
    );
    expect(topWithShare?.score).toBeGreaterThan(rankPart);
    // English through the glossary alone, for comparison with the CC-CEDICT lexicon: the flag is
    // honoured when the same question then finds other passages.
    const english = 'How do I measure my foot length?';
    const withLexicon = await runstream('kb', 'search', english, '--json');
    const glossaryOnly = await runstream('kb', 'search', english, '--json', '--no-english-lexicon');
    expect([withLexicon.code, glossaryOnly.code]).toEqual([0, 0]);
    const texts = (output: string) =>
      output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).text as string);
    expect(texts(glossaryOnly.stdout)).not.toEqual(texts(withLexicon.stdout));
  });

  it('evaluates a queries file and prints the metrics by type', async () => {
    const queries = join(directory, 'queries.jsonl');
    writeFileSync(
      queries,
      '{"id":"a","query":"这双鞋七天内能退吗？","gold":["7 个自然日内"],"type":"colloquial"}\n{"id":"b","query":"NS-X2-BLK-M","gold":["NS-X2-BLK-M"],"type":"exact_id"}\n',
    );
    const report = await runstream('kb', 'eval', queries, '--synonyms', SYNONYMS);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/colloquial\s+1\s+1\.000\s+1\.000\s+1\.000/);
    expect(report.stdout).toMatch(/overall\s+2\s+1\.000/);
  });

  it('reranks through the configured rerank server, and measures without it on --no-rerank', async () => {
    const fake = await startFakeRerankServer();
    try {
      const queries = join(directory, 'rerank-queries.jsonl');
      writeFileSync(queries, '{"id":"a","query":"这双鞋七天内能退吗？","gold":["7 个自然日内"]}\n');
      const env = {
        RUNSTREAM_RERANK_MODEL: 'bge-reranker-v2-m3',
        RUNSTREAM_RERANK_URL: fake.url('/v1/rerank'),
      };
      const reranked = await runstreamWith(env, 'kb', 'eval', queries, '--synonyms', SYNONYMS);
      expect(reranked.code).toBe(0);
      expect(reranked.stdout).toMatch(/lanes: exact \+ ngram \+ bm25, reranked by bge-reranker-v2-m3;/);
      expect(fake.requests).toHaveLength(1);
      const search = await runstreamWith(
        env,
        'kb',
        'search',
        '这双鞋七天内能退吗？',
        '--json',
        '--top-k',
        '2',
      );
      expect(JSON.parse(search.stdout.split('\n')[0] ?? '{}').rerankScore).toEqual(expect.any(Number));
      const plain = await runstreamWith(env, 'kb', 'eval', queries, '--synonyms', SYNONYMS, '--no-rerank');
      expect(plain.stdout).toMatch(/lanes: exact \+ ngram \+ bm25;/);
      expect(fake.requests).toHaveLength(2);
      const stats = await runstreamWith(env, 'kb', 'stats');
      expect(stats.stdout).toMatch(/search lanes: exact \+ ngram \+ bm25, reranked by bge-reranker-v2-m3/);
    } finally {
      await fake.close();
    }
  });

  it('refuses bad input with a clear message and a non-zero exit, leaving the index as it was', async () => {
    const badTable = join(directory, 'bad-table.txt');
    writeFileSync(badTable, '# a comment\nno equals sign here ===\n');
    const legacy = join(directory, 'legacy.txt');
    writeFileSync(legacy, Buffer.from([0xcd, 0xcb, 0xbb, 0xf5]));
    const cases = [
      [['kb', 'ingest', join(directory, 'missing')], 1, /missing: no such file or folder/],
      [['kb', 'ingest', legacy], 1, /legacy\.txt: not UTF-8/],
      [['kb', 'search', '   '], 2, /needs a query/],
      [['kb', 'eval', join(directory, 'nope.jsonl')], 1, /no such file/],
      [['kb', 'search', 'x', '--top-k', 'ten'], 2, /--top-k must be an integer/],
      [['kb', 'search', 'x', '--context-chars', '0'], 2, /--context-chars must be an integer/],
      [['kb', 'search', 'x', '--weights', 'bm25=-1'], 2, /--weights takes lane=weight pairs/],
      [['kb', 'search', 'x', '--weights', 'rerank=1'], 2, /--weights takes lane=weight pairs/],
      [['kb', 'search', 'x', '--score-share', '1.5'], 2, /--score-share takes a number from 0 to 1/],
      [['kb', 'search', 'x', '--synonyms', badTable], 1, /bad-table\.txt: synonym table line 2 is malformed/],
      [['kb', 'frobnicate'], 2, /unknown kb subcommand/],
    ] as const;
    // One after another: they share the store, and a search may store terms it re-analysed.
    for (const [args, code, message] of cases) {
      const result = await runstream(...args);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr).toMatch(message);
    }
    const stats = await runstream('kb', 'stats');
    expect(stats.stdout).toMatch(/16 documents/);
  });
});

/** `kbCommand` in this process, as `runstream kb …` runs it: what it prints, or what it throws. */
async function kb(...args: string[]): Promise<string> {
  let printed = '';
  await kbCommand(args, {
    write: (text: string) => {
      printed += text;
    },
  });
  return printed;
}

/** When the file was last written, and what it holds. */
function snapshot(path: string): [number, string] {
  return [statSync(path).mtimeMs, createHash('sha256').update(readFileSync(path)).digest('hex')];
}

describe('runstream kb, one knowledge base per agent', { timeout: 60_000 }, () => {
  it('ingests an agent folder into its namespace, then searches, evaluates and counts without writing', async () => {
    const db = join(directory, 'agents.db');
    const plain = join(directory, 'plain');
    mkdirSync(plain);
    writeFileSync(join(plain, 'hours.md'), '# 门店\n\n门店营业时间为早上九点到晚上六点。\n');
    const agent = join(directory, 'homefix');
    mkdirSync(join(agent, 'knowledge', 'guides'), { recursive: true });
    // Only the id is read: the rest of agent.json is the agent loader's.
    writeFileSync(
      join(agent, 'agent.json'),
      JSON.stringify({ id: 'homefix', name: '家电维修', knowledge: { description: '维修手册' } }),
    );
    writeFileSync(
      join(agent, 'knowledge', 'guides', 'washer.md'),
      '# 洗衣机故障\n\n## 错误代码\n\nE4 表示进水超时，请检查水龙头是否打开。\n\n## 保修\n\n整机保修一年。\n',
    );
    writeFileSync(join(agent, 'synonyms.txt'), '进水 = 上水\n');

    expect(await kb('ingest', plain, '--db', db)).toMatch(/namespace: default\ndocuments: 1 added/);
    expect(await kb('ingest', agent, '--db', db)).toMatch(
      /namespace: homefix\ndocuments: 1 added, 0 changed, 0 unchanged, 0 removed/,
    );
    // Neither ingest removes the other's documents, nor does ingesting either again.
    expect(await kb('ingest', plain, '--db', db)).toMatch(
      /documents: 0 added, 0 changed, 1 unchanged, 0 removed/,
    );
    expect(await kb('ingest', '--agent', agent, '--db', db)).toMatch(/1 unchanged, 0 removed/);

    const before = snapshot(db);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const [hit] = (
        await kb('search', 'E4 是什么意思', '--agent', agent, '--db', db, '--json', '--top-k', '1')
      )
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(hit.source.citation).toMatch(/^knowledge\/guides\/washer\.md#L5$/);
      // Searched with the synonyms it was ingested with: nothing is analysed again.
      expect(stderr.mock.calls.join('')).not.toMatch(/analys/);
      // The same namespace without them: analysed again in memory, and still nothing written.
      expect(await kb('search', '保修多久', '--namespace', 'homefix', '--db', db)).toMatch(
        /整机保修一年[\s\S]*\(knowledge\/guides\/washer\.md#L9\)/,
      );
      expect(stderr.mock.calls.join('')).toMatch(
        /re-analysing \d+ chunks for this open \(the store is read-only\)/,
      );
    } finally {
      stderr.mockRestore();
    }
    const queries = join(directory, 'homefix-queries.jsonl');
    writeFileSync(queries, '{"id":"a","query":"E4 什么意思","gold":["进水超时"],"type":"code"}\n');
    expect(await kb('eval', queries, '--agent', agent, '--db', db)).toMatch(/overall\s+1\s+1\.000/);
    const stats = await kb('stats', '--db', db);
    expect(stats).toMatch(/\[default\]: 1 documents, 1 chunks/);
    expect(stats).toMatch(/namespaces: default \(1 documents\), homefix \(1 documents\)/);
    await expect(kb('search', '保修', '--namespace', 'nobody', '--db', db)).rejects.toThrow(
      /knowledge base "nobody" in .* is empty[\s\S]*namespaces in the file: default \(1 documents\), homefix/,
    );
    expect(snapshot(db)).toEqual(before);

    await expect(kb('ingest', agent, '--namespace', 'other', '--db', db)).rejects.toThrow(
      /is the agent "homefix": its knowledge base is the namespace "homefix", not "other"/,
    );
    await expect(kb('stats', '--agent', plain, '--db', db)).rejects.toThrow(/not an agent folder/);
  });

  it('prints each subcommand’s usage on --help and refuses flags it does not take', async () => {
    expect(await kb('--help')).toBe(`${KB_USAGE}\n`);
    for (const subcommand of ['ingest', 'search', 'eval', 'stats']) {
      const usage = await kb(subcommand, '--help');
      expect(usage).toMatch(new RegExp(`^Usage:\\n  runstream kb ${subcommand} `));
      expect(usage).toMatch(/--namespace <id>/);
    }
    expect(await kb('ingest', '-h')).not.toMatch(/--top-k|--weights/);
    for (const args of [
      ['search', 'x', '--bogus'],
      ['ingest', directory, '--top-k', '3'],
      ['stats', '--json'],
      ['search', 'x', '--db'],
      ['search', 'x', '--namespace', 'Not An Id'],
      ['eval'],
    ]) {
      await expect(kb(...args), args.join(' ')).rejects.toBeInstanceOf(UsageError);
    }
    // As the command exits: usage on stdout and 0 for --help; 2 and this subcommand's usage for a mistake.
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['kb', 'eval', '--help'])).toBe(0);
      expect(stdout.mock.calls.join('')).toMatch(/^Usage:\n {2}runstream kb eval /);
      expect(await main(['kb', 'search', 'x', '--bogus'])).toBe(2);
      expect(stderr.mock.calls.join('')).toMatch(/Unknown option '--bogus'[\s\S]*runstream kb search/);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  });
});
