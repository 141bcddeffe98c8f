/**
 * `npm run bench:retrieval`: ingest 100,000 synthetic clauses with the offline embedder into a real
 * SQLite file, then time top-10 hybrid searches, next to a brute-force single-lane baseline measured
 * in the same run (the query's vector against every stored vector, no index). Prints figures and
 * ratios; asserts nothing about time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HashedNgramEmbedder,
  KnowledgeBase,
  rankByCosine,
  SqliteKnowledgeStore,
} from '../src/retrieval/index.ts';
import { canonicalText } from '../src/retrieval/text/index.ts';
import { openDatabase } from '../src/store/index.ts';
import { syntheticDocuments, syntheticQueries } from './synthetic-knowledge.ts';

const CLAUSES = Number(process.env.BENCH_CLAUSES ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 300);
const BASELINE_QUERIES = Math.min(QUERIES, 60);

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-bench-retrieval-'));
  try {
    console.log(`node ${process.version} · ${cpus()[0]?.model ?? 'unknown CPU'} · ${cpus().length} cores`);
    console.log(
      `corpus: ${CLAUSES.toLocaleString('en')} synthetic clauses · ${QUERIES} queries (a third quote a SKU)`,
    );
    const root = join(directory, 'knowledge');
    mkdirSync(root);
    for (const document of syntheticDocuments(CLAUSES, 100))
      writeFileSync(join(root, document.name), document.content);

    const database = openDatabase(join(directory, 'runstream.db'));
    const embedder = new HashedNgramEmbedder({ prepare: canonicalText, prepareVersion: 'canonical-v1' });
    const store = new SqliteKnowledgeStore(database);
    let started = performance.now();
    const summary = await (await KnowledgeBase.open({ store, embedder })).ingest([root], {
      baseDirectory: directory,
    });
    const ingestSeconds = (performance.now() - started) / 1000;
    console.log(
      `ingest: ${summary.chunks.added.toLocaleString('en')} chunks in ${ingestSeconds.toFixed(1)} s ` +
        `(${Math.round(summary.chunks.added / ingestSeconds).toLocaleString('en')} clauses/s, embedding and index build included)`,
    );

    // One knowledge base at a time for the memory figure: the offline default, lexical lanes only.
    // Heap plus typed-array memory, after a collection: RSS rarely shrinks, so it hides a delta.
    const liveBytes = () => {
      global.gc?.();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const liveBeforeOpen = liveBytes();
    started = performance.now();
    const lexical = await KnowledgeBase.open({ store });
    const buildSeconds = (performance.now() - started) / 1000;
    const lexicalBytes = liveBytes() - liveBeforeOpen;
    console.log(
      `open, offline default (load + build the exact, n-gram and BM25 indexes): ${buildSeconds.toFixed(1)} s · ` +
        `${megabytes(lexicalBytes)} of heap and typed arrays (${(lexicalBytes / lexical.chunkCount / 1024).toFixed(1)} KB per chunk)`,
    );
    started = performance.now();
    const reopened = await KnowledgeBase.open({ store, embedder });
    global.gc?.();
    console.log(
      `open with the vector lane as well: ${((performance.now() - started) / 1000).toFixed(1)} s · ` +
        `process RSS now ${megabytes(process.memoryUsage().rss)} (both knowledge bases held)`,
    );

    const queries = syntheticQueries(QUERIES);
    const time = async (label: string, search: (query: string) => Promise<unknown>, count: number) => {
      for (const query of queries.slice(0, 20)) await search(query);
      const samples: number[] = [];
      for (const query of queries.slice(0, count)) {
        const start = performance.now();
        await search(query);
        samples.push(performance.now() - start);
      }
      return { label, count, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
    };

    const vectors = (await store.loadChunks({ embeddingModel: embedder.model }))
      .map((chunk) => chunk.embedding)
      .filter((vector) => vector !== null);
    const baseline = await time(
      'baseline: brute-force cosine, one lane, no index',
      async (query) => {
        const [vector] = await embedder.embed([query]);
        if (vector) rankByCosine(vector, vectors, 10);
      },
      BASELINE_QUERIES,
    );
    const rows = [
      baseline,
      await time(
        'hybrid top-10: exact + n-gram + BM25 (offline default)',
        (query) => lexical.search(query, { topK: 10 }),
        QUERIES,
      ),
      await time(
        'hybrid top-10: + hashed vector lane',
        (query) => reopened.search(query, { topK: 10 }),
        QUERIES,
      ),
    ];
    console.log('');
    console.log(
      `${'case'.padEnd(58)} ${'queries'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}  p50 vs baseline`,
    );
    for (const row of rows) {
      const ratio = row === baseline ? 'baseline' : `${(baseline.p50 / row.p50).toFixed(2)}× faster`;
      console.log(
        `${row.label.padEnd(58)} ${String(row.count).padStart(7)} ${row.p50.toFixed(2).padStart(8)} ${row.p95.toFixed(2).padStart(8)}  ${ratio}`,
      );
    }
    console.log(
      '\nTarget: p50 under 20 ms at 100,000 clauses. Ratios come from this run on a shared, noisy machine.',
    );
    database.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
