import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AgentDefinitionError, type DefinitionPlace } from './agent-definition-error.ts';
import { importAgentModule } from './import-agent-module.ts';
import { type AnyAgentTool, checkAgentTool } from './tool.ts';

/** Module files a tools/ folder may hold; declarations and tests are not tools. */
const TOOL_MODULE = /^(?!\.)(?!.*\.d\.[mc]?ts$)(?!.*\.test\.)[^/\\]+\.(?:mjs|js|ts|mts)$/;

/**
 * The tools of an agent folder's tools/: each module (by file name; subfolders are left for the
 * modules' own helpers) default-exports a `tool()` or a list of them; a `.ts` one loads as
 * `importAgentModule` says. A module that fails to load, exports something else, or defines a tool
 * whose name another module took is an `AgentDefinitionError` naming the file.
 */
export async function loadToolModules(
  directory: string,
  places: Record<string, DefinitionPlace>,
): Promise<AnyAgentTool[]> {
  let names: string[];
  try {
    if (!statSync(directory).isDirectory()) return [];
    names = readdirSync(directory)
      .filter((name) => TOOL_MODULE.test(name))
      .sort();
  } catch {
    return [];
  }
  const tools: AnyAgentTool[] = [];
  const files = new Map<string, string>();
  for (const name of names) {
    const file = join(directory, name);
    let module: { default?: unknown };
    try {
      module = await importAgentModule(file);
    } catch (error) {
      throw new AgentDefinitionError(
        `the module cannot be loaded: ${error instanceof Error ? error.message : String(error)}`,
        { file },
      );
    }
    const exported = module.default;
    if (exported === undefined)
      throw new AgentDefinitionError(
        'a tools/ module must default-export a tool made with tool() (or a list of them); put helpers in a subfolder',
        { file },
      );
    for (const candidate of Array.isArray(exported) ? exported : [exported]) {
      checkAgentTool(candidate, { file });
      const earlier = files.get(candidate.name);
      if (earlier !== undefined)
        throw new AgentDefinitionError(`two tools are named ${candidate.name} (the other is in ${earlier})`, {
          file,
        });
      files.set(candidate.name, file);
      places[`tools.${candidate.name}`] = { file };
      tools.push(candidate);
    }
  }
  return tools;
}
