/**
 * One cold open of a knowledge base file, in a process of its own as a restarted server does:
 * `node --expose-gc --import tsx bench/cold-open.ts <file> [hashed]` prints `{"seconds": …, "chunks": …}`.
 * The retrieval benchmark runs it; the figure is the open alone, without module loading.
 */
import { HashedNgramEmbedder, KnowledgeBase, SqliteKnowledgeStore } from '../src/retrieval/index.ts';
import { canonicalText } from '../src/retrieval/text/index.ts';
import { openDatabase } from '../src/store/index.ts';

const [file, embedderName] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: cold-open.ts <file> [hashed]');
const embedder =
  embedderName === 'hashed'
    ? new HashedNgramEmbedder({ prepare: canonicalText, prepareVersion: 'canonical-v1' })
    : undefined;
// Heap plus typed arrays after a collection (RSS rarely shrinks, so it hides a delta).
const liveBytes = () => {
  global.gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};
const database = openDatabase(file);
const liveBefore = liveBytes();
const started = performance.now();
const cpuStarted = process.cpuUsage();
const knowledgeBase = await KnowledgeBase.open({
  store: new SqliteKnowledgeStore(database),
  ...(embedder ? { embedder } : {}),
});
const seconds = (performance.now() - started) / 1000;
// CPU time too: on a shared machine the wall clock also counts other people's work.
const cpu = process.cpuUsage(cpuStarted);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const liveMegabytes = (liveBytes() - liveBefore) / 1024 / 1024;
const analysed = Object.values(knowledgeBase.buildReport.analysedChunks).reduce(
  (sum, count) => sum + count,
  0,
);
console.log(
  JSON.stringify({
    seconds,
    cpuSeconds,
    liveMegabytes,
    chunks: knowledgeBase.chunkCount,
    analysed,
    vectorSearch: knowledgeBase.vectorSearch,
  }),
);
database.close();
