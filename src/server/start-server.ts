import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createNovaShopDomain, ingestNovaShopKnowledge } from '../domains/novashop/index.ts';
import { type ChatModel, createChatModelFromEnv } from '../models/index.ts';
import { openKnowledgeBase } from '../retrieval/index.ts';
import { RunManager, type ToolPolicy } from '../runtime/index.ts';
import {
  databasePathFromEnv,
  openDatabase,
  SqliteResponseRecords,
  SqliteRunStore,
  SqliteToolAuditLog,
} from '../store/index.ts';
import { createApp } from './create-app.ts';
import { denyToolsPolicyFromEnv, loggingAuditLog } from './tool-governance.ts';

export const DEMO_USER_ID = 'usr_demo';

export const NOVASHOP_SYSTEM_PROMPT = `你是 NovaShop 的智能客服。规则：
- 回答政策问题前先用 search_knowledge 检索条款，只根据检索到的条款回答，并注明出处；检索不到就说不知道，建议联系人工客服。
- 处理订单前先用 load_skill 加载对应手册，再用 query_order 查清订单状态；取消等写操作必须调用对应工具，由用户确认后才会执行。
- 不编造订单号、金额或政策。回答简洁、礼貌，使用简体中文（用户用英文时用英文）。`;

export interface StartServerOptions {
  /** Serve the built web UI from this folder (`dist/web`, see `serve-web.ts`); off when absent. */
  webRoot?: string;
  /** Use this model instead of the environment's (tests with a scripted model, embedders). */
  model?: ChatModel;
  /** Governance: checked in order before every tool call, on both faces (after `RUNSTREAM_DENY_TOOLS`). */
  policies?: readonly ToolPolicy[];
}

export interface StartedServer {
  url: string;
  demoToken: string;
  modelName: string;
  close(): Promise<void>;
}

/**
 * The composition root: one SQLite file (runs, messages, orders, knowledge), the NovaShop demo
 * (knowledge ingested incrementally, orders seeded for the demo user), a model (an
 * OpenAI-compatible one when configured, the offline demo model otherwise), the run manager (runs a
 * crash left running become interrupted) and the HTTP server, with the web UI from
 * `options.webRoot` and the demo session unless `RUNSTREAM_DEMO_LOGIN=off`.
 */
export async function startServer(
  env: Readonly<Record<string, string | undefined>> = process.env,
  log: (line: Record<string, unknown>) => void = (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
  options: StartServerOptions = {},
): Promise<StartedServer> {
  const demoLogin = demoLoginFromEnv(env);
  const database = openDatabase(databasePathFromEnv(env));
  const store = new SqliteRunStore(database);
  const knowledge = await openKnowledgeBase(database, env);
  await ingestNovaShopKnowledge(knowledge);
  const domain = createNovaShopDomain({
    database,
    knowledge,
    modelDelayMs: Number(env.RUNSTREAM_DEMO_DELAY_MS ?? 30),
  });

  const demoUser =
    (await store.getUser(DEMO_USER_ID)) ??
    (await store.createUser('NovaShop 演示用户', { id: DEMO_USER_ID }));
  const fixedToken = env.RUNSTREAM_DEMO_TOKEN?.trim();
  let demoToken: string;
  if (fixedToken) {
    await store.addToken(demoUser.id, fixedToken, 'demo (RUNSTREAM_DEMO_TOKEN)');
    demoToken = fixedToken;
  } else {
    demoToken = await store.issueToken(demoUser.id, 'demo');
  }
  domain.seed(demoUser.id);

  const model = options.model ?? createChatModelFromEnv(env) ?? domain.model;
  const audit = loggingAuditLog(new SqliteToolAuditLog(database), log);
  const denyList = denyToolsPolicyFromEnv(env);
  const policies = [...(denyList ? [denyList] : []), ...(options.policies ?? [])];
  const runs = new RunManager({
    audit,
    ...(policies.length > 0 ? { policies } : {}),
    store,
    model,
    tools: domain.tools,
    skills: domain.skills,
    systemPrompt: NOVASHOP_SYSTEM_PROMPT,
  });
  const interrupted = await runs.recoverInterruptedRuns();
  if (interrupted > 0)
    log({ level: 'warn', message: `${interrupted} run(s) left running by a crash are now interrupted` });

  const app = createApp({
    store,
    runs,
    log,
    sources: domain.sources,
    responses: { records: new SqliteResponseRecords(database), modelName: model.name },
    audit,
    ...(demoLogin ? { demoSession: { userId: demoUser.id } } : {}),
    ...(options.webRoot === undefined ? {} : { webRoot: options.webRoot }),
  });
  const server = serve({
    fetch: app.fetch,
    port: Number(env.PORT ?? 8787),
    hostname: env.HOST ?? '127.0.0.1',
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    demoToken,
    modelName: model.name,
    async close() {
      await runs.close();
      await new Promise((resolve) => server.close(resolve));
      database.close();
    },
  };
}

/** `RUNSTREAM_DEMO_LOGIN`: the demo session (`POST /auth/demo-session`) is on unless it is `off`/`0`/`false`. */
export function demoLoginFromEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.RUNSTREAM_DEMO_LOGIN?.trim().toLowerCase() ?? '';
  if (['', 'on', '1', 'true'].includes(value)) return true;
  if (['off', '0', 'false'].includes(value)) return false;
  throw new Error(`RUNSTREAM_DEMO_LOGIN must be "on" or "off", got "${env.RUNSTREAM_DEMO_LOGIN}"`);
}
