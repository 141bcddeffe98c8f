import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Skill } from '../../runtime/skill.ts';

/** The NovaShop handbooks: `order-change`, `returns-and-refunds`, `shipping-and-size`. */
export const NOVASHOP_SKILLS_DIRECTORY = fileURLToPath(new URL('./skills/', import.meta.url));

/** Every `*.md` handbook in the folder (default: the NovaShop skills), sorted by file name. */
export function loadNovaShopSkills(directory: string = NOVASHOP_SKILLS_DIRECTORY): Skill[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => parseSkill(readFileSync(join(directory, file), 'utf8'), file));
}

/**
 * A handbook: a front matter of `key: value` lines between `---` lines (name, title, description,
 * unlocks: a comma-separated list of tool names, possibly empty), then the Markdown body. Only that
 * flat subset of YAML is accepted; anything else is an error naming the file and the line.
 */
export function parseSkill(source: string, origin = 'skill'): Skill {
  const lines = source.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') throw new Error(`${origin}: a skill starts with a --- front matter line`);
  const end = lines.findIndex((line, position) => position > 0 && line.trim() === '---');
  if (end === -1) throw new Error(`${origin}: the front matter has no closing --- line`);
  const fields = new Map<string, string>();
  lines.slice(1, end).forEach((line, position) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const match = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!match?.[1]) throw new Error(`${origin}: line ${position + 2} is not "key: value": ${line}`);
    if (fields.has(match[1])) throw new Error(`${origin}: "${match[1]}" appears twice in the front matter`);
    fields.set(match[1], unquote((match[2] ?? '').trim()));
  });
  const required = (key: string): string => {
    const value = fields.get(key);
    if (!value) throw new Error(`${origin}: the front matter needs "${key}"`);
    return value;
  };
  const name = required('name');
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`${origin}: name "${name}" must be kebab-case`);
  const unlocks = (fields.get('unlocks') ?? '').replace(/^\[(.*)\]$/, '$1');
  return {
    name,
    title: required('title'),
    description: required('description'),
    body: lines
      .slice(end + 1)
      .join('\n')
      .trim(),
    unlocksTools: unlocks
      .split(',')
      .map((tool) => unquote(tool.trim()))
      .filter((tool) => tool !== ''),
  };
}

function unquote(value: string): string {
  return /^(['"]).*\1$/.test(value) ? value.slice(1, -1) : value;
}
