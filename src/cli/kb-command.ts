import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type Database from 'better-sqlite3';
import {
  DEFAULT_KNOWLEDGE_NAMESPACE,
  decodeUtf8,
  evaluate,
  formatEvalReport,
  type IngestSummary,
  type KnowledgeBase,
  type OpenKnowledgeBaseOptions,
  openKnowledgeBase,
  parseEvalQueries,
  RetrievalError,
  type SearchHit,
  SqliteKnowledgeStore,
} from '../retrieval/index.ts';
import { createTextAnalyzer, parseSynonymTable } from '../retrieval/text/index.ts';
import { databasePathFromEnv, loadBetterSqlite3, openDatabase } from '../store/index.ts';
import { ProgressBar } from './progress-bar.ts';
import { UsageError } from './usage-error.ts';

type Subcommand = 'ingest' | 'search' | 'eval' | 'stats';
const SUBCOMMANDS: readonly Subcommand[] = ['ingest', 'search', 'eval', 'stats'];

const SUBCOMMAND_USAGE: Record<Subcommand, string> = {
  ingest: `  runstream kb ingest <agent-folder|path…>    an agent folder (one with agent.json): its knowledge/ into
                                              the namespace of its "id", paths relative to the folder
                                              (citations read knowledge/…#L12), analysed with its
                                              synonyms.txt; other paths: Markdown, text and FAQ files
                                              and folders into --namespace. A file gone from an ingested
                                              folder is removed; nothing else is`,
  search: `  runstream kb search "<query>" [--top-k 5] [--context-chars 300] [--json]
                                              K distinct passages; --json: one hit per line with
                                              text, context, highlights, score, lanes, source`,
  eval: `  runstream kb eval <queries.jsonl> [--json]  Recall@1, Recall@3 and MRR@10, overall and by type, and
                                              how well low evidence separates no-answer questions`,
  stats: `  runstream kb stats                          documents, chunks and active search lanes of a
                                              knowledge base, and the namespaces in the file`,
};

/** Each option's help, and the subcommands that take it. */
const OPTION_USAGE: readonly [text: string, subcommands: readonly Subcommand[]][] = [
  [
    `  --db <file>            the SQLite file (default: $RUNSTREAM_DB or ./data/runstream.db); search, eval
                         and stats only read it`,
    SUBCOMMANDS,
  ],
  [
    `  --agent <folder>       the knowledge base of an agent folder: the namespace of its agent.json "id",
                         analysed with its synonyms.txt`,
    SUBCOMMANDS,
  ],
  [
    `  --namespace <id>       which knowledge base of the file (default "default"); one per agent, each
                         independent of the others`,
    SUBCOMMANDS,
  ],
  [
    `  --synonyms <file>      a synonym table (an agent folder's synonyms.txt) added to the general
                         analyser (default: an agent folder's synonyms.txt, else $RUNSTREAM_SYNONYMS or
                         none); ingest with the one you search with`,
    SUBCOMMANDS,
  ],
  [
    '  --weights <lane=w,…>   fusion weights of exact, ngram, bm25, pinyin, vector (0 = off)',
    ['search', 'eval', 'stats'],
  ],
  [
    `  --score-share <0–1>    how much of each lane's relative score joins its rank in the fusion
                         (default 0.2; 0 = ranks alone, for comparison)`,
    ['search', 'eval', 'stats'],
  ],
  [
    `  --no-english-lexicon   English words through the general glossary only, not through CC-CEDICT's
                         glosses of the knowledge base's words (for comparison)`,
    ['search', 'eval', 'stats'],
  ],
  [
    `  --no-paraphrase        a question's words the knowledge base lacks stay as they are, not met by its
                         words with the same CC-CEDICT gloss (for comparison)`,
    ['search', 'eval', 'stats'],
  ],
  [
    `  --no-rerank            the fused order, without the reranker that RUNSTREAM_RERANK_* configures
                         (for comparison)`,
    ['search', 'eval', 'stats'],
  ],
  ['  -h, --help             this text', SUBCOMMANDS],
];

function usageOf(subcommands: readonly Subcommand[]): string {
  const options = OPTION_USAGE.filter(([, takers]) => subcommands.some((name) => takers.includes(name)));
  return [
    'Usage:',
    ...subcommands.map((name) => SUBCOMMAND_USAGE[name]),
    '',
    subcommands.length === 1 ? 'Options:' : 'Options (each subcommand takes those that apply to it):',
    ...options.map(([text]) => text),
  ].join('\n');
}

export const KB_USAGE = usageOf(SUBCOMMANDS);

const COMMON_OPTIONS = {
  db: { type: 'string' },
  agent: { type: 'string' },
  namespace: { type: 'string' },
  synonyms: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const SEARCH_OPTIONS = {
  ...COMMON_OPTIONS,
  weights: { type: 'string' },
  'score-share': { type: 'string' },
  'no-english-lexicon': { type: 'boolean', default: false },
  'no-paraphrase': { type: 'boolean', default: false },
  'no-rerank': { type: 'boolean', default: false },
} as const;

const OPTIONS = {
  ingest: COMMON_OPTIONS,
  search: {
    ...SEARCH_OPTIONS,
    'top-k': { type: 'string' },
    'context-chars': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  eval: { ...SEARCH_OPTIONS, json: { type: 'boolean', default: false } },
  stats: SEARCH_OPTIONS,
} as const;

/** An agent's id, as agent.json spells it: also what a namespace given by hand must look like. */
const NAMESPACE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The parsed options of any subcommand: those it does not take are undefined. */
interface KbValues {
  db?: string | undefined;
  agent?: string | undefined;
  namespace?: string | undefined;
  synonyms?: string | undefined;
  help?: boolean | undefined;
  weights?: string | undefined;
  'score-share'?: string | undefined;
  'no-english-lexicon'?: boolean | undefined;
  'no-paraphrase'?: boolean | undefined;
  'no-rerank'?: boolean | undefined;
  'top-k'?: string | undefined;
  'context-chars'?: string | undefined;
  json?: boolean | undefined;
}

/** One knowledge base of the file, and where its documents come from. */
interface KnowledgeTarget {
  namespace: string;
  /** Files and folders to ingest (ingest only). */
  paths: string[];
  /** Document paths are relative to it: an agent folder; undefined for the working directory. */
  baseDirectory: string | undefined;
  synonymsPath: string | undefined;
}

export async function kbCommand(
  argv: string[],
  output: { write(text: string): unknown } = process.stdout,
): Promise<number> {
  const [subcommand, ...rest] = argv;
  const print = (line = '') => output.write(`${line}\n`);
  if (subcommand === 'help' || subcommand === '--help' || subcommand === '-h') {
    print(KB_USAGE);
    return 0;
  }
  if (!SUBCOMMANDS.includes(subcommand as Subcommand)) {
    throw new UsageError(
      subcommand === undefined ? 'kb needs a subcommand' : `unknown kb subcommand "${subcommand}"`,
      KB_USAGE,
    );
  }
  const name = subcommand as Subcommand;
  const usage = usageOf([name]);
  let parsed: { values: KbValues; positionals: string[] };
  try {
    // Each subcommand's own options, so another's is an unknown flag; KbValues covers them all.
    parsed = parseArgs({ args: rest, allowPositionals: true, strict: true, options: OPTIONS[name] }) as {
      values: KbValues;
      positionals: string[];
    };
  } catch (error) {
    // An unknown flag, or one without its value: a mistake in the call, told with this usage.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_'))
      throw new UsageError((error as Error).message, usage);
    throw error;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    print(usage);
    return 0;
  }
  const databasePath = values.db === undefined ? databasePathFromEnv() : resolve(values.db);
  const env = values['no-rerank'] ? withoutReranker(process.env) : process.env;
  const searchOptions = (target: KnowledgeTarget): OpenKnowledgeBaseOptions => ({
    namespace: target.namespace,
    ...(target.synonymsPath
      ? { analyzer: createTextAnalyzer({ synonyms: readSynonyms(target.synonymsPath) }) }
      : {}),
    ...(values['no-english-lexicon'] ? { englishLexicon: false } : {}),
    ...(values['no-paraphrase'] ? { paraphrases: false } : {}),
    ...parseWeights(values.weights),
    ...parseScoreShare(values['score-share']),
  });

  switch (name) {
    case 'ingest': {
      const targets = ingestTargets(positionals, values, usage);
      const database = openDatabase(databasePath);
      try {
        for (const [position, target] of targets.entries()) {
          if (position > 0) print();
          const knowledge = await openKnowledgeBase(database, env, searchOptions(target));
          const bar = new ProgressBar();
          const summary = await knowledge.ingest(target.paths, {
            ...(target.baseDirectory === undefined ? {} : { baseDirectory: target.baseDirectory }),
            onProgress: (progress) => bar.update(progress.phase, progress.done, progress.total),
          });
          bar.finish();
          // A large knowledge base with an embedder gets its ANN graph built and stored now, so that
          // the server opens it without building it.
          await knowledge.vectorLaneReady();
          print(formatIngestSummary(summary, databasePath, knowledge));
        }
      } finally {
        database.close();
      }
      return 0;
    }
    case 'search': {
      const query = positionals.join(' ');
      if (query.trim().length === 0)
        throw new UsageError('kb search needs a query, e.g. runstream kb search "七天能退吗"', usage);
      const topK = parseTopK(values['top-k']);
      const contextChars = parseContextChars(values['context-chars']);
      const target = readTarget(values);
      const database = openForReading(databasePath);
      try {
        const knowledge = await openKnowledgeBase(database, env, searchOptions(target));
        assertNotEmpty(knowledge, database, databasePath);
        const result = await knowledge.search(query, {
          topK,
          ...(contextChars === undefined ? {} : { contextChars }),
        });
        if (values.json) {
          for (const hit of result.hits) print(JSON.stringify({ ...hit, lowEvidence: result.lowEvidence }));
        } else {
          print(formatHits(result.hits, result.lowEvidence, result.tookMs));
        }
      } finally {
        database.close();
      }
      return 0;
    }
    case 'eval': {
      if (positionals.length !== 1) throw new UsageError('kb eval needs one queries.jsonl file', usage);
      const [path] = positionals as [string];
      const target = readTarget(values);
      const bytes = await readFile(path).catch(() => {
        throw new RetrievalError('invalid_eval_file', `${path}: no such file`);
      });
      const queries = parseEvalQueries(decodeUtf8(bytes, path), path);
      const database = openForReading(databasePath);
      try {
        const knowledge = await openKnowledgeBase(database, env, searchOptions(target));
        assertNotEmpty(knowledge, database, databasePath);
        const report = await evaluate(queries, (query, topK) => knowledge.search(query, { topK }));
        if (values.json) {
          print(
            JSON.stringify({
              overall: report.overall,
              byType: report.byType,
              lowEvidence: report.lowEvidence,
            }),
          );
        } else {
          print(
            `${queries.length} queries, lanes: ${describeLanes(knowledge)}; a hit is a top-10 passage whose context holds a gold substring (clause columns: the matched clause alone)`,
          );
          print(formatEvalReport(report));
        }
      } finally {
        database.close();
      }
      return 0;
    }
    case 'stats': {
      if (positionals.length > 0) throw new UsageError('kb stats takes no arguments', usage);
      const target = readTarget(values);
      const database = openForReading(databasePath);
      try {
        const knowledge = await openKnowledgeBase(database, env, searchOptions(target));
        print(
          `${databasePath} [${knowledge.namespace}]: ${knowledge.documentCount} documents, ${knowledge.chunkCount} chunks`,
        );
        print(`search lanes: ${describeLanes(knowledge)}`);
        print(`namespaces: ${describeNamespaces(database) || 'none'}`);
      } finally {
        database.close();
      }
      return 0;
    }
  }
}

/**
 * What `kb ingest` ingests: each agent folder (a positional with agent.json, or `--agent`) into its
 * own namespace, and the other paths together into `--namespace`.
 */
function ingestTargets(positionals: readonly string[], values: KbValues, usage: string): KnowledgeTarget[] {
  const agentFolders = positionals.filter(isAgentFolder);
  if (values.agent !== undefined) agentFolders.push(values.agent);
  const paths = positionals.filter((path) => !isAgentFolder(path));
  if (agentFolders.length === 0 && paths.length === 0)
    throw new UsageError('kb ingest needs an agent folder, or at least one file or folder', usage);
  const namespace = namespaceOption(values);
  const targets = agentFolders.map((folder) => {
    const target = agentTarget(folder, values, namespace);
    const knowledge = join(resolve(folder), 'knowledge');
    if (!statSync(knowledge, { throwIfNoEntry: false })?.isDirectory())
      throw new RetrievalError('invalid_source', `${folder}: the agent has no knowledge/ folder to ingest`);
    return { ...target, paths: [knowledge] };
  });
  const seen = new Map<string, string>();
  for (const [position, target] of targets.entries()) {
    const folder = agentFolders[position] as string;
    const other = seen.get(target.namespace);
    if (other !== undefined)
      throw new UsageError(`${other} and ${folder} are both the agent "${target.namespace}"`, usage);
    seen.set(target.namespace, folder);
  }
  if (paths.length > 0) {
    targets.push({
      namespace: namespace ?? DEFAULT_KNOWLEDGE_NAMESPACE,
      paths,
      baseDirectory: undefined,
      synonymsPath: values.synonyms ?? environmentSynonyms(),
    });
  }
  return targets;
}

/** What `kb search`, `eval` and `stats` read: `--agent`'s namespace, or `--namespace`. */
function readTarget(values: KbValues): KnowledgeTarget {
  const namespace = namespaceOption(values);
  if (values.agent !== undefined) return agentTarget(values.agent, values, namespace);
  return {
    namespace: namespace ?? DEFAULT_KNOWLEDGE_NAMESPACE,
    paths: [],
    baseDirectory: undefined,
    synonymsPath: values.synonyms ?? environmentSynonyms(),
  };
}

function agentTarget(folder: string, values: KbValues, namespace: string | undefined): KnowledgeTarget {
  const directory = resolve(folder);
  const id = readAgentId(folder);
  if (namespace !== undefined && namespace !== id)
    throw new UsageError(
      `${folder} is the agent "${id}": its knowledge base is the namespace "${id}", not "${namespace}"`,
    );
  const ownSynonyms = join(directory, 'synonyms.txt');
  return {
    namespace: id,
    paths: [],
    baseDirectory: directory,
    synonymsPath: values.synonyms ?? (existsSync(ownSynonyms) ? ownSynonyms : undefined),
  };
}

function namespaceOption(values: KbValues): string | undefined {
  const namespace = values.namespace;
  if (namespace !== undefined && !NAMESPACE_PATTERN.test(namespace))
    throw new UsageError(
      `--namespace takes an agent id (lowercase letters, digits, "-" and "_", at most 64), got "${namespace}"`,
    );
  return namespace;
}

function environmentSynonyms(): string | undefined {
  return process.env.RUNSTREAM_SYNONYMS?.trim() || undefined;
}

function isAgentFolder(path: string): boolean {
  try {
    return statSync(join(path, 'agent.json')).isFile();
  } catch {
    // No such file, or `path` is a file itself: the ingest names what is wrong with the path.
    return false;
  }
}

/**
 * The agent's id from its agent.json, read alone: the rest of the file is the agent loader's to
 * check, and a knowledge base needs only the name of its namespace.
 */
function readAgentId(folder: string): string {
  const file = join(folder, 'agent.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new RetrievalError('invalid_source', `${folder}: not an agent folder (no agent.json)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RetrievalError('invalid_source', `${file}: ${(error as Error).message}`, { cause: error });
  }
  const id = (parsed as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || !NAMESPACE_PATTERN.test(id))
    throw new RetrievalError(
      'invalid_source',
      `${file}: "id" must be lowercase letters, digits, "-" and "_" (at most 64), got ${JSON.stringify(id)}`,
    );
  return id;
}

/**
 * The file opened for reading only: a search, an evaluation or the stats change nothing in it, not
 * even the caches an open would otherwise store (they are built in memory).
 */
function openForReading(path: string): Database.Database {
  if (!existsSync(path))
    throw new RetrievalError(
      'invalid_source',
      `${path}: no such database; run runstream kb ingest <agent-folder|path> first`,
    );
  const database = new (loadBetterSqlite3())(path, { readonly: true, fileMustExist: true });
  // The server or an ingest may be writing: wait for it rather than fail.
  database.pragma('busy_timeout = 5000');
  return database;
}

function assertNotEmpty(knowledge: KnowledgeBase, database: Database.Database, databasePath: string): void {
  if (knowledge.chunkCount > 0) return;
  const others = describeNamespaces(database);
  throw new RetrievalError(
    'invalid_source',
    `the knowledge base "${knowledge.namespace}" in ${databasePath} is empty: run runstream kb ingest <agent-folder|path> first` +
      (others === '' ? '' : ` (namespaces in the file: ${others})`),
  );
}

function describeNamespaces(database: Database.Database): string {
  return SqliteKnowledgeStore.namespaces(database)
    .map(({ namespace, documents }) => `${namespace} (${documents} documents)`)
    .join(', ');
}

/** The environment without the reranker's settings: `--no-rerank`. */
function withoutReranker(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('RUNSTREAM_RERANK_')));
}

function describeLanes(knowledge: { activeLanes: string[]; rerankerModel: string | undefined }): string {
  const lanes = knowledge.activeLanes.join(' + ');
  return knowledge.rerankerModel === undefined ? lanes : `${lanes}, reranked by ${knowledge.rerankerModel}`;
}

/** The table's text, checked here: a malformed line is named with its file, not met mid-search. */
function readSynonyms(path: string): string {
  let table: string;
  try {
    table = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`--synonyms: cannot read ${path}`);
  }
  try {
    parseSynonymTable(table);
  } catch (error) {
    throw new RetrievalError('invalid_source', `${path}: ${(error as Error).message}`, { cause: error });
  }
  return table;
}

function parseTopK(value: string | undefined): number {
  if (value === undefined) return 5;
  const topK = Number(value);
  if (!Number.isInteger(topK) || topK <= 0 || topK > 100)
    throw new UsageError(`--top-k must be an integer from 1 to 100, got "${value}"`);
  return topK;
}

const LANES = ['exact', 'ngram', 'bm25', 'pinyin', 'vector'] as const;

/** `--weights bm25=0,vector=1`: fusion weights per lane, for ablations; 0 turns a lane off. */
function parseWeights(value: string | undefined): {
  weights?: Partial<Record<(typeof LANES)[number], number>>;
} {
  if (value === undefined) return {};
  const weights: Partial<Record<(typeof LANES)[number], number>> = {};
  for (const pair of value.split(',')) {
    const [lane, weight] = pair.split('=').map((part) => part.trim());
    const number = Number(weight);
    if (
      !LANES.includes(lane as (typeof LANES)[number]) ||
      weight === '' ||
      !Number.isFinite(number) ||
      number < 0
    )
      throw new UsageError(
        `--weights takes lane=weight pairs of ${LANES.join(', ')} (weight ≥ 0), got "${pair}"`,
      );
    weights[lane as (typeof LANES)[number]] = number;
  }
  return { weights };
}

function parseScoreShare(value: string | undefined): { fusionScoreShare?: number } {
  if (value === undefined) return {};
  const share = Number(value);
  if (value.trim() === '' || !Number.isFinite(share) || share < 0 || share > 1)
    throw new UsageError(`--score-share takes a number from 0 to 1, got "${value}"`);
  return { fusionScoreShare: share };
}

function parseContextChars(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const chars = Number(value);
  if (!Number.isInteger(chars) || chars <= 0 || chars > 10_000)
    throw new UsageError(`--context-chars must be an integer from 1 to 10000, got "${value}"`);
  return chars;
}

function formatIngestSummary(summary: IngestSummary, databasePath: string, knowledge: KnowledgeBase): string {
  const { documents, chunks } = summary;
  return [
    `namespace: ${knowledge.namespace}`,
    `documents: ${documents.added} added, ${documents.changed} changed, ${documents.unchanged} unchanged, ${documents.removed} removed`,
    `chunks:    ${chunks.added} added, ${chunks.unchanged} unchanged, ${chunks.removed} removed (${knowledge.chunkCount} in the index)`,
    `embedded:  ${summary.embedded} chunks`,
    `time:      ${(summary.durationMs / 1000).toFixed(2)} s → ${databasePath}`,
  ].join('\n');
}

function formatHits(hits: readonly SearchHit[], lowEvidence: boolean, tookMs: number): string {
  if (hits.length === 0) return 'no results';
  const lines = hits.map((hit, index) => {
    const section = hit.headingPath.slice(1).join(' › ') || hit.title;
    const lanes = Object.entries(hit.lanes)
      .map(([lane, rank]) => `${lane}#${rank.rank}`)
      .join(' ');
    // The passage around the clause, when it says more than the clause alone.
    const context =
      hit.context === hit.text ? '' : `\n   context: ${hit.context.replaceAll('\n', '\n            ')}`;
    return `${index + 1}. ${hit.text}${context}\n   ${hit.title} › ${section}  (${hit.source.citation})\n   score ${hit.score.toFixed(4)}  lanes ${lanes}`;
  });
  const note = lowEvidence
    ? '\nlow evidence: nothing matched convincingly; an answer should say it does not know.'
    : '';
  return `${lines.join('\n')}\n${note}\n(${tookMs.toFixed(1)} ms)`;
}
