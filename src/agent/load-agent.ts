import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { databasePathFromEnv } from '../store/open-database.ts';
import {
  type Agent,
  type AgentFolderContext,
  type AgentKnowledge,
  type AgentSkill,
  isAgent,
} from './agent.ts';
import { AgentDefinitionError, type DefinitionPlace } from './agent-definition-error.ts';
import { buildAgent } from './define-agent.ts';
import { importAgentModule } from './import-agent-module.ts';
import { loadToolModules } from './load-tool-modules.ts';
import { parseAgentJson } from './parse-agent-json.ts';
import { parseMcpFile } from './parse-mcp-file.ts';
import { parseSkillFile } from './parse-skill-file.ts';

export interface LoadAgentOptions {
  /**
   * The environment the agent runs in: mcp.json's `${NAME}` references, and what the folder's
   * `agent.ts` is given (`AgentFolderContext`); default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The module a folder may add for what needs code, in the order they are looked for. */
const AGENT_MODULES = ['agent.ts', 'agent.mts', 'agent.mjs', 'agent.js'];

/**
 * An agent from its folder, the same object `defineAgent` returns:
 *
 * - `agent.json`: id, name, description, language, ui, model, maxSteps, knowledge, messages, and the
 *   per-tool settings under `tools` (required);
 * - `instructions.md`: the system prompt (required);
 * - `knowledge/` and `synonyms.txt`: the documents `search_knowledge` answers from;
 * - `skills/<name>/SKILL.md`: handbooks, each unlocking the tools its front matter lists;
 * - `mcp.json`: MCP servers (`{"mcpServers": …}`), relative paths against the folder;
 * - `tools/*.mjs|*.js|*.ts`: modules that default-export a `tool()` or a list of them.
 *
 * Anything that does not add up (an unknown key, bad front matter, a skill unlocking a tool that does
 * not exist, two tools of one name) is an `AgentDefinitionError` naming the file and line. Tools the
 * agent's MCP servers offer are checked when `resolveAgent` connects them.
 */
export async function loadAgent(dir: string, options: LoadAgentOptions = {}): Promise<Agent> {
  const directory = resolve(dir);
  if (!isDirectory(directory)) throw new AgentDefinitionError(`${dir} is not a folder`);
  const at = (...parts: string[]) => join(dir, ...parts);

  const agentFile = at('agent.json');
  const agentJson = parseAgentJson(readRequired(agentFile, 'agent.json (id, name, …)'), agentFile);
  const places: Record<string, DefinitionPlace> = { ...agentJson.places };

  const instructionsFile = at('instructions.md');
  const instructions = readRequired(instructionsFile, 'instructions.md (the system prompt)').trim();
  places.instructions = { file: instructionsFile };
  if (instructions === '')
    throw new AgentDefinitionError('the system prompt is empty', { file: instructionsFile });

  const knowledge = knowledgeOf(directory, agentJson.knowledgeDescription);
  if (knowledge === undefined && agentJson.knowledgePlace !== undefined)
    throw new AgentDefinitionError(
      '"knowledge" is set, but the folder has no knowledge/ folder of documents',
      agentJson.knowledgePlace,
    );

  const skills = loadSkills(dir, places);
  const tools = await loadToolModules(at('tools'), places);

  const env = options.env ?? process.env;
  const mcpFile = at('mcp.json');
  const mcpServers = existsSync(mcpFile)
    ? parseMcpFile(readFileSync(mcpFile, 'utf8'), mcpFile, places, env)
    : undefined;

  const moduleFile = AGENT_MODULES.map((name) => join(directory, name)).find((path) => existsSync(path));
  const folder = buildAgent(
    {
      ...agentJson.config,
      instructions,
      directory,
      ...(knowledge === undefined ? {} : { knowledge }),
      ...(skills.length === 0 ? {} : { skills }),
      ...(tools.length === 0 ? {} : { tools }),
      ...(mcpServers === undefined ? {} : { mcpServers }),
    },
    { origin: { places }, mcpServersParsed: true, deferReferences: moduleFile !== undefined },
  );
  if (moduleFile === undefined) return folder;
  return completeWithModule(folder, moduleFile, { env, databasePath: databasePathFromEnv({ ...env }) });
}

/**
 * The folder's `agent.ts`: its default export is given the folder's agent and returns the whole one
 * (tools that need code, a model of its own), or is an agent itself. Checked as `defineAgent` checks,
 * the skill → tool references included, now that every tool is known.
 */
async function completeWithModule(folder: Agent, file: string, context: AgentFolderContext): Promise<Agent> {
  let exported: unknown;
  try {
    exported = (await importAgentModule(file)).default;
  } catch (error) {
    throw new AgentDefinitionError(`cannot be loaded: ${(error as Error).message}`, { file });
  }
  let agent: unknown = exported;
  if (typeof exported === 'function') {
    try {
      agent = await (exported as (folder: Agent, context: AgentFolderContext) => unknown)(folder, context);
    } catch (error) {
      if (error instanceof AgentDefinitionError) throw error;
      throw new AgentDefinitionError(`its default export failed: ${(error as Error).message}`, { file });
    }
  }
  if (!isAgent(agent))
    throw new AgentDefinitionError(
      'must default-export a function (folder, context) => defineAgent({ ...folder, … }), or an agent',
      { file },
    );
  if (agent.id !== folder.id)
    throw new AgentDefinitionError(`returns the agent "${agent.id}", but agent.json says "${folder.id}"`, {
      file,
    });
  return agent;
}

function knowledgeOf(directory: string, description: string | undefined): AgentKnowledge | undefined {
  const documents = join(directory, 'knowledge');
  if (!isDirectory(documents)) return undefined;
  const synonyms = join(directory, 'synonyms.txt');
  return {
    dirs: [documents],
    ...(existsSync(synonyms) ? { synonyms } : {}),
    ...(description === undefined ? {} : { description }),
  };
}

/** skills/<name>/SKILL.md, by folder name. */
function loadSkills(dir: string, places: Record<string, DefinitionPlace>): AgentSkill[] {
  const skillsDirectory = join(dir, 'skills');
  if (!isDirectory(skillsDirectory)) return [];
  const skills: AgentSkill[] = [];
  for (const entry of readdirSync(skillsDirectory, { withFileTypes: true }).sort(byName)) {
    if (entry.name.startsWith('.')) continue;
    const folder = join(skillsDirectory, entry.name);
    if (!entry.isDirectory())
      throw new AgentDefinitionError('a skill is a folder skills/<name>/ holding a SKILL.md', {
        file: folder,
      });
    const file = join(folder, 'SKILL.md');
    const { skill, nameLine, toolsLine } = parseSkillFile(readRequired(file, 'SKILL.md'), file);
    if (skill.name !== entry.name)
      throw new AgentDefinitionError(
        `the skill's name "${skill.name}" must be its folder's name, "${entry.name}"`,
        { file, line: nameLine },
      );
    places[`skills.${skill.name}`] = { file };
    if (toolsLine !== undefined) places[`skills.${skill.name}.tools`] = { file, line: toolsLine };
    skills.push(skill);
  }
  return skills;
}

function readRequired(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new AgentDefinitionError(
      code === 'ENOENT'
        ? `missing: an agent folder needs ${what}`
        : `cannot be read (${code ?? String(error)})`,
      { file },
    );
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
