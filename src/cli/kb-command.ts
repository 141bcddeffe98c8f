import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  decodeUtf8,
  evaluate,
  formatEvalReport,
  type IngestSummary,
  openKnowledgeBase,
  parseEvalQueries,
  RetrievalError,
  type SearchHit,
} from '../retrieval/index.ts';
import { createTextAnalyzer, parseSynonymTable } from '../retrieval/text/index.ts';
import { databasePathFromEnv, openDatabase } from '../store/index.ts';
import { ProgressBar } from './progress-bar.ts';
import { UsageError } from './usage-error.ts';

export const KB_USAGE = `Usage:
  runstream kb ingest <path…>                 ingest Markdown, text and FAQ files or folders
  runstream kb search "<query>" [--top-k 5] [--context-chars 300] [--json]
                                              K distinct passages; --json: one hit per line with
                                              text, context, highlights, score, lanes, source
  runstream kb eval <queries.jsonl> [--json]  Recall@1, Recall@3 and MRR@10, overall and by type, and
                                              how well low evidence separates no-answer questions
  runstream kb stats                          documents, chunks and active search lanes

Options:
  --db <file>            the SQLite file (default: $RUNSTREAM_DB or ./data/runstream.db)
  --synonyms <file>      a domain's synonym table (e.g. src/domains/novashop/synonyms.txt), added to
                         the general analyser for search and eval (default: $RUNSTREAM_SYNONYMS or none)
  --weights <lane=w,…>   search and eval: fusion weights of exact, ngram, bm25, pinyin, vector (0 = off)
  --score-share <0–1>    search and eval: how much of each lane's relative score joins its rank in the
                         fusion (default 0.2; 0 = ranks alone, for comparison)
  --no-english-lexicon   search and eval: English words through the general glossary only, not
                         through CC-CEDICT's glosses of the knowledge base's words (for comparison)
  --no-paraphrase        search and eval: a question's words the knowledge base lacks stay as they are,
                         not met by its words with the same CC-CEDICT gloss (for comparison)
  --no-rerank            search and eval: the fused order, without the reranker that RUNSTREAM_RERANK_*
                         configures (for comparison)`;

export async function kbCommand(
  argv: string[],
  output: NodeJS.WriteStream = process.stdout,
): Promise<number> {
  const [subcommand, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      synonyms: { type: 'string' },
      'top-k': { type: 'string' },
      'context-chars': { type: 'string' },
      weights: { type: 'string' },
      'score-share': { type: 'string' },
      json: { type: 'boolean', default: false },
      'no-english-lexicon': { type: 'boolean', default: false },
      'no-paraphrase': { type: 'boolean', default: false },
      'no-rerank': { type: 'boolean', default: false },
    },
  });
  const databasePath = values.db ?? databasePathFromEnv();
  const env = values['no-rerank'] ? withoutReranker(process.env) : process.env;
  const print = (line = '') => output.write(`${line}\n`);
  const synonymsPath = values.synonyms ?? process.env.RUNSTREAM_SYNONYMS?.trim();
  const analyzerOptions = {
    ...(synonymsPath ? { analyzer: createTextAnalyzer({ synonyms: readSynonyms(synonymsPath) }) } : {}),
    ...(values['no-english-lexicon'] ? { englishLexicon: false } : {}),
    ...(values['no-paraphrase'] ? { paraphrases: false } : {}),
  };

  switch (subcommand) {
    case 'ingest': {
      if (positionals.length === 0) throw new UsageError('kb ingest needs at least one file or folder');
      const database = openDatabase(databasePath);
      try {
        const knowledge = await openKnowledgeBase(database, env, analyzerOptions);
        const bar = new ProgressBar();
        const summary = await knowledge.ingest(positionals, {
          onProgress: (progress) => bar.update(progress.phase, progress.done, progress.total),
        });
        bar.finish();
        // A large knowledge base with an embedder gets its ANN graph built and stored now, so that
        // the server opens it without building it.
        await knowledge.vectorLaneReady();
        print(formatIngestSummary(summary, databasePath, knowledge.chunkCount));
      } finally {
        database.close();
      }
      return 0;
    }
    case 'search': {
      const query = positionals.join(' ');
      if (query.trim().length === 0)
        throw new UsageError('kb search needs a query, e.g. runstream kb search "七天能退吗"');
      const topK = parseTopK(values['top-k']);
      const contextChars = parseContextChars(values['context-chars']);
      const database = openDatabase(databasePath);
      try {
        const knowledge = await openKnowledgeBase(database, env, {
          ...analyzerOptions,
          ...parseWeights(values.weights),
          ...parseScoreShare(values['score-share']),
        });
        if (knowledge.chunkCount === 0) {
          throw new RetrievalError(
            'invalid_source',
            `the knowledge base in ${databasePath} is empty: run runstream kb ingest <path> first`,
          );
        }
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
      const [path] = positionals;
      if (path === undefined) throw new UsageError('kb eval needs a queries.jsonl file');
      const bytes = await readFile(path).catch(() => {
        throw new RetrievalError('invalid_eval_file', `${path}: no such file`);
      });
      const queries = parseEvalQueries(decodeUtf8(bytes, path), path);
      const database = openDatabase(databasePath);
      try {
        const knowledge = await openKnowledgeBase(database, env, {
          ...analyzerOptions,
          ...parseWeights(values.weights),
          ...parseScoreShare(values['score-share']),
        });
        if (knowledge.chunkCount === 0) {
          throw new RetrievalError(
            'invalid_source',
            `the knowledge base in ${databasePath} is empty: run runstream kb ingest <path> first`,
          );
        }
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
      const database = openDatabase(databasePath);
      try {
        const knowledge = await openKnowledgeBase(database, env, analyzerOptions);
        print(`${databasePath}: ${knowledge.documentCount} documents, ${knowledge.chunkCount} chunks`);
        print(`search lanes: ${describeLanes(knowledge)}`);
      } finally {
        database.close();
      }
      return 0;
    }
    default:
      throw new UsageError(
        subcommand === undefined ? 'kb needs a subcommand' : `unknown kb subcommand "${subcommand}"`,
        KB_USAGE,
      );
  }
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

function formatIngestSummary(summary: IngestSummary, databasePath: string, totalChunks: number): string {
  const { documents, chunks } = summary;
  return [
    `documents: ${documents.added} added, ${documents.changed} changed, ${documents.unchanged} unchanged, ${documents.removed} removed`,
    `chunks:    ${chunks.added} added, ${chunks.unchanged} unchanged, ${chunks.removed} removed (${totalChunks} in the index)`,
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
