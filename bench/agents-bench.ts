/**
 * `npm run bench:agents`: what starting a server with several agents costs. Three agent folders of
 * BENCH_DOCUMENTS (default 1,000) synthetic policy documents each (5 clauses a document), served by
 * one `startServer` on a real SQLite file with the offline embedder:
 *
 * - baseline: the same three agents without knowledge (the rest of a start: store, runs, HTTP);
 * - cold: a fresh file, every document of every agent ingested into its own namespace;
 * - incremental: the same file again, nothing changed (each file's bytes compared, nothing parsed);
 * - one agent changed: 1% of one agent's documents edited, the other agents untouched.
 *
 * Prints the times and their ratio to the baseline measured in the same run; asserts nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Agent, defineAgent, loadAgent } from '../src/index.ts';
import { startServer } from '../src/node/start-server.ts';
import { syntheticDocuments } from './synthetic-knowledge.ts';

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 1_000);
const AGENTS = 3;
const CLAUSES_PER_DOCUMENT = 5;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'runstream-bench-agents-'));
  try {
    console.log(`node ${process.version} · ${cpus()[0]?.model ?? 'unknown CPU'} · ${cpus().length} cores`);
    console.log(
      `${AGENTS} agents × ${DOCUMENTS} documents × ${CLAUSES_PER_DOCUMENT} clauses, offline embedder\n`,
    );
    const folders = Array.from({ length: AGENTS }, (_, index) => writeAgent(root, index));

    const bare = await Promise.all(
      folders.map(async (folder) => {
        const loaded = await loadAgent(folder);
        const { knowledge: _knowledge, ...rest } = loaded;
        return defineAgent({ ...rest, id: `${loaded.id}-bare` });
      }),
    );
    const baseline = await timedStart(join(root, 'baseline.db'), bare);

    const database = join(root, 'agents.db');
    const cold = await timedStart(database, await loadAll(folders));
    const incremental = await timedStart(database, await loadAll(folders));
    // 1% of the first agent's documents change; the others' must cost what an unchanged start costs.
    const changed = Math.max(1, Math.round(DOCUMENTS / 100));
    for (const document of syntheticDocuments(changed * CLAUSES_PER_DOCUMENT, CLAUSES_PER_DOCUMENT, 9_001))
      writeFileSync(join(folders[0] ?? '', 'knowledge', document.name), document.content);
    const oneChanged = await timedStart(database, await loadAll(folders));

    const rows: [string, number][] = [
      ['baseline: 3 agents, no knowledge', baseline],
      [`cold: ${AGENTS * DOCUMENTS} documents ingested`, cold],
      ['incremental: nothing changed', incremental],
      [`one agent: ${changed} documents changed`, oneChanged],
    ];
    for (const [label, ms] of rows)
      console.log(
        `${label.padEnd(44)} ${ms.toFixed(0).padStart(7)} ms   ×${(ms / baseline).toFixed(1)} baseline`,
      );
    console.log(
      `\ncold per document: ${((cold - baseline) / (AGENTS * DOCUMENTS)).toFixed(2)} ms; incremental start ÷ cold: ${(incremental / cold).toFixed(3)}`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function writeAgent(root: string, index: number): string {
  const folder = join(root, `agent-${index}`);
  mkdirSync(join(folder, 'knowledge'), { recursive: true });
  writeFileSync(
    join(folder, 'agent.json'),
    JSON.stringify({ id: `bench-${index}`, name: `Bench ${index}`, language: 'zh-CN' }),
  );
  writeFileSync(join(folder, 'instructions.md'), '你是客服，先检索再回答。\n');
  for (const document of syntheticDocuments(
    DOCUMENTS * CLAUSES_PER_DOCUMENT,
    CLAUSES_PER_DOCUMENT,
    1_000 + index,
  ))
    writeFileSync(join(folder, 'knowledge', document.name), document.content);
  return folder;
}

function loadAll(folders: readonly string[]): Promise<Agent[]> {
  return Promise.all(folders.map((folder) => loadAgent(folder)));
}

/** From `startServer` to listening, then closed again. */
async function timedStart(databasePath: string, agents: readonly Agent[]): Promise<number> {
  const started = performance.now();
  const server = await startServer({ RUNSTREAM_DB: databasePath, PORT: '0' }, () => undefined, { agents });
  const ms = performance.now() - started;
  await server.close();
  return ms;
}

await main();
