#!/usr/bin/env node
// The `runstream` command. In this repository (the sources are here) it runs the TypeScript through
// tsx, so there is no build step between a checkout and a working command; from the installed package
// it runs the built JavaScript in dist/, with no tsx and no bundler.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sources = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  // The repository's tsconfig maps `runstream/…` to the sources, whatever the working directory.
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
