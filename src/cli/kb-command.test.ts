import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeRerankServer } from '../retrieval/test-support/index.ts';

/** The real command, as a newcomer runs it: `runstream kb …` in a child process. */
const run = promisify(execFile);
const BIN = new URL('../../bin/runstream.mjs', import.meta.url).pathname;
const KNOWLEDGE = new URL('../domains/novashop/knowledge', import.meta.url).pathname;
/** NovaShop's own synonym table: the demo corpus is searched with it, as `npm run eval:retrieval` does. */
const SYNONYMS = new URL('../domains/novashop/synonyms.txt', import.meta.url).pathname;
let directory: string;
let database: string;

async function runstream(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runstreamWith({}, ...args);
}

/** The command with these environment variables added to the test's own. */
async function runstreamWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args, '--db', database], {
      timeout: 60_000,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-cli-'));
  database = join(directory, 'runstream.db');
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

// Each test starts several CLI processes one after another (each loads TypeScript through tsx and
// opens the index): on two busy cores that takes longer than the suite's default timeout, which is
// a guard against a hang, not a measure of speed.
describe('runstream kb', { timeout: 120_000 }, () => {
  it('ingests the demo knowledge, then finds nothing new on a second run', async () => {
    const first = await runstream('kb', 'ingest', KNOWLEDGE);
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
    expect(human.stdout).toMatch(/\(src\/domains\/novashop\/knowledge\/[a-z/-]+\.(md|json)#L\d+\)/);
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
  }, 60_000);
});
