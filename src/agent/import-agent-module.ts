import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const TYPESCRIPT_MODULE = /\.[mc]?ts$/;

let registering: Promise<void> | undefined;

/**
 * Import one of an agent folder's modules (`agent.ts`, a `tools/` module). A TypeScript one loads as it
 * is wherever the process already compiles TypeScript (the repository's CLI and tests, `tsx`, a Node
 * that strips types); from the built package on a plain Node, tsx (an optional peer) is registered
 * the first time one is met, before importing it, since Node remembers a failed import of a file.
 */
export async function importAgentModule(file: string): Promise<{ default?: unknown }> {
  if (TYPESCRIPT_MODULE.test(file) && !processLoadsTypeScript()) {
    registering ??= registerTsx();
    await registering;
  }
  return (await import(pathToFileURL(file).href)) as { default?: unknown };
}

function processLoadsTypeScript(): boolean {
  // This file itself running as TypeScript means something already compiles it (tsx, Vitest).
  if (import.meta.url.endsWith('.ts')) return true;
  if ((process.features as { typescript?: unknown }).typescript) return true;
  // `node --import tsx` hooks require() too, which leaves this mark; an earlier registration by us does not.
  return createRequire(import.meta.url).extensions['.ts'] !== undefined;
}

async function registerTsx(): Promise<void> {
  let api: typeof import('tsx/esm/api');
  try {
    api = await import('tsx/esm/api');
  } catch (error) {
    registering = undefined;
    const missing =
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String(error).includes("'tsx'");
    if (!missing) throw error;
    throw new Error(
      'a TypeScript module needs the optional package tsx to load: install it with `npm install tsx`, or write the module as .mjs',
      { cause: error },
    );
  }
  api.register();
}
