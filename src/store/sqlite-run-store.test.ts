import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteKnowledgeStore } from '../retrieval/sqlite-knowledge-store.ts';
import { openDatabase } from './open-database.ts';
import type { Decision } from './run-store.ts';
import { SqliteRunStore } from './sqlite-run-store.ts';
import { migrateRunStore, RUN_STORE_MIGRATIONS } from './sqlite-run-store-schema.ts';
import {
  createHarness,
  createManualClock,
  describeRunStoreConformance,
  expectStoreError,
  seedPausedMessage,
} from './test-support/index.ts';

interface RaceOutcome {
  applied: boolean;
  decision: Decision;
  claimed: boolean;
}

/** A `race-child.ts` process: `ready` once it has the file open, `outcome` once it has raced. */
function startContender(args: string[]): { ready: Promise<void>; outcome: Promise<RaceOutcome> } {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const outcome = new Promise<RaceOutcome>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`race-child exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout.slice('ready\n'.length)) as RaceOutcome);
    });
  });
  // A child that dies before `ready` must fail the test, not hang it.
  return { ready: Promise.race([ready, outcome.then(() => undefined)]), outcome };
}

function temporaryDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'runstream-store-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The database file and its WAL as text: where every byte the store wrote ends up. */
function fileText(path: string): string {
  return [path, `${path}-wal`]
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString('latin1'))
    .join('\n');
}

describeRunStoreConformance('SqliteRunStore on a file', async ({ now }) => {
  const directory = temporaryDirectory();
  const path = join(directory.path, 'runstream.db');
  const database = openDatabase(path);
  return {
    store: new SqliteRunStore(database, { now }),
    persistedText: async () => fileText(path),
    close: async () => {
      database.close();
      directory.remove();
    },
  };
});

describe('SqliteRunStore on a file', () => {
  let directory: ReturnType<typeof temporaryDirectory>;
  let path: string;
  const open: Database[] = [];
  const openFile = (): Database => {
    const database = openDatabase(path);
    open.push(database);
    return database;
  };

  beforeEach(() => {
    directory = temporaryDirectory();
    path = join(directory.path, 'data', 'runstream.db');
  });
  afterEach(() => {
    for (const database of open.splice(0)) if (database.open) database.close();
    directory.remove();
  });

  it('keeps everything across a close and a reopen', async () => {
    const clock = createManualClock();
    const first = openFile();
    const harness = await createHarness(async ({ now }) => ({
      store: new SqliteRunStore(first, { now }),
      close: async () => {},
    }));
    const { store } = harness;
    const { user, conversation } = await harness.conversation('Ada');
    const token = await store.issueToken(user.id, 'laptop');
    const question = await store.addUserMessage(conversation.id, '帮我取消吧', 'client-1');
    const { run } = await harness.run('paused', conversation);
    await store.saveAssistantMessage(conversation.id, run.messageId, run.id, seedPausedMessage());
    await store.saveToolCall({
      runId: run.id,
      toolCallId: 'call_cancel',
      name: 'cancel_order',
      args: { orderId: '88235' },
      effect: 'write',
      status: 'awaiting_confirmation',
      decision: null,
    });
    await store.saveCheckpoint(run.id, {
      transcript: [{ role: 'user', content: '帮我取消吧' }],
      iterations: 2,
    });
    const decision: Decision = { decision: 'approve', decidedAt: clock.now(), note: '确认' };
    await store.decide(run.id, 'call_cancel', decision);
    expect(await store.claimExecution(run.id, 'call_cancel')).toBe(true);
    const snapshot = {
      user: await store.getUser(user.id),
      conversations: await store.listConversations(user.id),
      messages: await store.listMessages(conversation.id),
      run: await store.getRun(run.id),
      toolCalls: await store.listToolCalls(run.id),
    };
    first.close();

    const reopened = new SqliteRunStore(openFile());
    expect(await reopened.findUserByToken(token)).toEqual(snapshot.user);
    expect({
      user: await reopened.getUser(user.id),
      conversations: await reopened.listConversations(user.id),
      messages: await reopened.listMessages(conversation.id),
      run: await reopened.getRun(run.id),
      toolCalls: await reopened.listToolCalls(run.id),
    }).toEqual(snapshot);
    expect(snapshot.messages[0]).toEqual(question);
    expect(await reopened.findActiveRun(conversation.id)).toEqual(snapshot.run);
    expect(await reopened.getCheckpoint(run.id)).toEqual({
      transcript: [{ role: 'user', content: '帮我取消吧' }],
      iterations: 2,
    });
    expect(await reopened.claimExecution(run.id, 'call_cancel')).toBe(false);
    expect(
      (await reopened.decide(run.id, 'call_cancel', { decision: 'reject', decidedAt: 1 })).decision,
    ).toEqual(decision);
    await expectStoreError(
      reopened.addUserMessage(conversation.id, 'again', 'client-1'),
      'duplicate_client_message',
    );
  });

  it('migrates once: opening again, or migrating again, changes nothing', async () => {
    const database = openFile();
    const store = new SqliteRunStore(database);
    const user = await store.createUser('Ada');
    const schema = () =>
      database
        .prepare("SELECT name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
        .all();
    const before = schema();
    new SqliteRunStore(database);
    migrateRunStore(database);
    expect(schema()).toEqual(before);
    expect(database.prepare('SELECT version FROM store_schema').all()).toEqual([
      { version: RUN_STORE_MIGRATIONS.length },
    ]);
    expect(await new SqliteRunStore(database).getUser(user.id)).toEqual(user);
  });

  it('brings a file of an older schema up to date, keeping its rows', async () => {
    const database = openFile();
    database.exec(RUN_STORE_MIGRATIONS[0] ?? '');
    database.exec(
      'CREATE TABLE store_schema (version INTEGER NOT NULL); INSERT INTO store_schema VALUES (1);',
    );
    database.exec(`INSERT INTO users VALUES ('usr_old', 'Old', 1);
      INSERT INTO conversations (id, user_id, title, created_at, updated_at) VALUES ('conv_old', 'usr_old', 't', 1, 1);
      INSERT INTO runs (id, conversation_id, message_id, user_id, status, last_seq, created_at, updated_at)
        VALUES ('run_old', 'conv_old', 'msg_old', 'usr_old', 'paused', 7, 1, 1);`);
    const store = new SqliteRunStore(database);
    expect(database.prepare('SELECT version FROM store_schema').get()).toEqual({
      version: RUN_STORE_MIGRATIONS.length,
    });
    expect(await store.getRun('run_old')).toMatchObject({ status: 'paused', lastSeq: 7 });
    expect(await store.getCheckpoint('run_old')).toBeUndefined();
    await store.saveCheckpoint('run_old', { iterations: 1 });
    expect(await store.getCheckpoint('run_old')).toEqual({ iterations: 1 });
  });

  it('opens a file of the schema before agents: old conversations are the default agent’s, old runs null', async () => {
    // Version 5 is the last schema released before conversations and runs named their agent.
    const before = openFile();
    for (const statement of RUN_STORE_MIGRATIONS.slice(0, 5)) before.exec(statement);
    before.exec('CREATE TABLE store_schema (version INTEGER NOT NULL); INSERT INTO store_schema VALUES (5);');
    before.exec(`INSERT INTO users VALUES ('usr_old', 'Old', 1);
      INSERT INTO conversations (id, user_id, title, created_at, updated_at) VALUES ('conv_old', 'usr_old', '旧对话', 1, 2);
      INSERT INTO runs (id, conversation_id, message_id, user_id, status, last_seq, created_at, updated_at)
        VALUES ('run_old', 'conv_old', 'msg_old', 'usr_old', 'completed', 7, 1, 2);`);
    before.close();

    const database = openFile();
    const store = new SqliteRunStore(database);
    expect(database.prepare('SELECT version FROM store_schema').get()).toEqual({
      version: RUN_STORE_MIGRATIONS.length,
    });
    const columns = (table: string) =>
      (database.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map(
        (column) => column.name,
      );
    expect(columns('conversations')).toContain('agent_id');
    expect(columns('runs')).toEqual(expect.arrayContaining(['agent_id', 'agent_revision']));
    const old = {
      id: 'conv_old',
      userId: 'usr_old',
      agentId: '',
      title: '旧对话',
      createdAt: 1,
      updatedAt: 2,
    };
    expect(await store.getConversation('conv_old')).toEqual(old);
    expect(await store.listConversations('usr_old', { agentId: '' })).toEqual([old]);
    expect(await store.getRun('run_old')).toMatchObject({
      status: 'completed',
      lastSeq: 7,
      agentId: null,
      agentRevision: null,
    });
    // New rows beside the old ones carry their agent.
    const repair = await store.createConversation('usr_old', 'repair', { agentId: 'homefix' });
    const run = await store.createRun({
      id: 'run_new',
      conversationId: repair.id,
      messageId: 'msg_new',
      userId: 'usr_old',
      status: 'running',
      cancelReason: null,
      lastSeq: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
      agentId: 'homefix',
      agentRevision: 'rev-1',
    });
    expect(await store.getRun(run.id)).toEqual(run);
    expect(await store.listConversations('usr_old', { agentId: 'homefix' })).toEqual([repair]);
  });

  it('shares the file with the knowledge tables, each with its own schema version', async () => {
    const database = openFile();
    new SqliteKnowledgeStore(database);
    new SqliteRunStore(database);
    new SqliteKnowledgeStore(database);
    const tables = (
      database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]
    )
      .map((row) => row.name)
      .filter((name) => !name.startsWith('sqlite_'))
      .sort();
    expect(tables).toEqual([
      'api_tokens',
      'conversations',
      'kb_chunk_terms',
      'kb_chunks',
      'kb_documents',
      'kb_postings',
      'kb_schema',
      'kb_term_fields',
      'kb_terms',
      'kb_vector_graphs',
      'messages',
      'runs',
      'store_schema',
      'tool_calls',
      'users',
    ]);
  });

  it('refuses a file migrated by a newer runstream', () => {
    const database = openFile();
    new SqliteRunStore(database);
    database.prepare('UPDATE store_schema SET version = ?').run(RUN_STORE_MIGRATIONS.length + 1);
    expect(() => new SqliteRunStore(database)).toThrow(
      expect.objectContaining({ name: 'RunStoreError', code: 'schema_too_new' }),
    );
  });

  it('decides and executes once when separate processes race on the same file', async () => {
    const store = new SqliteRunStore(openFile());
    const harness = await createHarness(async () => ({ store, close: async () => {} }));
    const { run } = await harness.run('paused');
    await store.saveToolCall({
      runId: run.id,
      toolCallId: 'call_cancel',
      name: 'cancel_order',
      args: { orderId: '88235' },
      effect: 'write',
      status: 'awaiting_confirmation',
      decision: null,
    });
    const script = new URL('./test-support/race-child.ts', import.meta.url).pathname;
    const goFile = join(directory.path, 'go');
    const contenders = Array.from({ length: 6 }, (_, n) =>
      startContender([script, path, run.id, 'call_cancel', n % 2 === 0 ? 'approve' : 'reject', goFile]),
    );
    // Everyone has the file open before anyone may write, so the race is real.
    await Promise.all(contenders.map((contender) => contender.ready));
    writeFileSync(goFile, '');
    const outcomes = await Promise.all(contenders.map((contender) => contender.outcome));
    const winners = outcomes.filter((outcome) => outcome.applied);
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes) expect(outcome.decision).toEqual(winners[0]?.decision);
    expect(outcomes.filter((outcome) => outcome.claimed)).toHaveLength(1);
    expect((await store.getToolCall(run.id, 'call_cancel'))?.decision).toEqual(winners[0]?.decision);
  }, 30_000);
});
