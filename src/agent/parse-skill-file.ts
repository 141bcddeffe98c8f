import type { AgentSkill } from './agent.ts';
import { AgentDefinitionError } from './agent-definition-error.ts';

/** A SKILL.md read: the skill, and the lines its name and tools were written on. */
export interface SkillFile {
  skill: AgentSkill;
  nameLine: number;
  toolsLine?: number;
}

const KNOWN_KEYS = ['name', 'title', 'description', 'tools'];

type FrontMatterValue = { kind: 'scalar'; value: string } | { kind: 'list'; items: string[] };

/**
 * Read a SKILL.md: a front matter between `---` lines, then the handbook (Markdown). The front matter
 * is a small subset of YAML, enough for what a skill says and nothing that surprises: `key: value`
 * scalars (plain, "double" or 'single' quoted), flow lists `[a, b]` and block lists of `- item`
 * lines, and `#` comments. Keys: name, description, title (optional), tools (the tools it unlocks).
 * Anything else is an `AgentDefinitionError` naming `file` and the line.
 */
export function parseSkillFile(text: string, file: string): SkillFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const fail = (what: string, line: number): never => {
    throw new AgentDefinitionError(what, { file, line });
  };
  if (lines[0]?.trim() !== '---') fail('a SKILL.md starts with a front matter between --- lines', 1);
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (end === -1) fail('the front matter has no closing --- line', 1);

  const values = new Map<string, { value: FrontMatterValue; line: number }>();
  let index = 1;
  while (index < end) {
    const line = lines[index] ?? '';
    const number = index + 1;
    index += 1;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (/^\s/.test(line)) fail('unexpected indentation (only "- item" lines of a list are indented)', number);
    if (line.startsWith('-')) fail('a "- item" line belongs under a key (e.g. "tools:")', number);
    const match = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*)|)$/.exec(line);
    const key = match?.[1];
    if (key === undefined) return fail(`expected "key: value", found ${JSON.stringify(line)}`, number);
    if (!KNOWN_KEYS.includes(key)) fail(`unknown key "${key}" (known: ${KNOWN_KEYS.join(', ')})`, number);
    if (values.has(key)) fail(`"${key}" appears twice`, number);
    const rest = stripComment((match?.[2] ?? '').trim());
    if (rest === '') {
      // A block list: the "- item" lines that follow (blank lines and comments allowed between).
      const items: string[] = [];
      while (index < end) {
        const item = lines[index] ?? '';
        if (item.trim() === '' || item.trimStart().startsWith('#')) {
          index += 1;
          continue;
        }
        const entry = /^\s*-(?:\s+(.*)|)$/.exec(item);
        if (entry === null) break;
        const value = scalar(stripComment((entry[1] ?? '').trim()), index + 1, fail);
        if (value === '') fail('an empty list item', index + 1);
        items.push(value);
        index += 1;
      }
      values.set(key, {
        value: items.length > 0 ? { kind: 'list', items } : { kind: 'scalar', value: '' },
        line: number,
      });
    } else if (rest.startsWith('[')) {
      values.set(key, { value: { kind: 'list', items: flowList(rest, number, fail) }, line: number });
    } else if (rest.startsWith('|') || rest.startsWith('>'))
      fail('multi-line values (| and >) are not supported: write the value on one line', number);
    else if (rest.startsWith('{'))
      fail('objects ({ … }) are not supported in a skill’s front matter', number);
    else values.set(key, { value: { kind: 'scalar', value: scalar(rest, number, fail) }, line: number });
  }

  const textOf = (key: string, required: boolean): string | undefined => {
    const entry = values.get(key);
    if (entry === undefined) return required ? fail(`the front matter needs "${key}"`, 1) : undefined;
    if (entry.value.kind !== 'scalar') return fail(`"${key}" must be text, not a list`, entry.line);
    if (entry.value.value === '') return fail(`"${key}" is empty`, entry.line);
    return entry.value.value;
  };
  const name = textOf('name', true) as string;
  const description = textOf('description', true) as string;
  const title = textOf('title', false);
  const tools = values.get('tools');
  if (tools !== undefined && tools.value.kind === 'scalar' && tools.value.value !== '')
    fail('"tools" must be a list: tools: [a, b], or "- a" lines under "tools:"', tools.line);
  return {
    skill: {
      name,
      ...(title === undefined ? {} : { title }),
      description,
      instructions: lines
        .slice(end + 1)
        .join('\n')
        .trim(),
      ...(tools === undefined ? {} : { tools: tools.value.kind === 'list' ? tools.value.items : [] }),
    },
    nameLine: values.get('name')?.line ?? 1,
    ...(tools === undefined ? {} : { toolsLine: tools.line }),
  };
}

/** `[a, "b c", 'd']`: items split at commas outside quotes. */
function flowList(text: string, line: number, fail: (what: string, line: number) => never): string[] {
  if (!text.endsWith(']')) fail('a list that starts with [ must end with ] on the same line', line);
  const inner = text.slice(1, -1);
  const items: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let index = 0; index < inner.length; index += 1) {
    const char = inner[index] as string;
    if (quote !== undefined) {
      current += char;
      if (char === '\\' && quote === '"') {
        current += inner[index + 1] ?? '';
        index += 1;
      } else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
      current += char;
    } else if (char === ',') {
      items.push(current);
      current = '';
    } else if (char === '[' || char === ']' || char === '{' || char === '}')
      fail('lists inside lists, and objects, are not supported', line);
    else current += char;
  }
  if (quote !== undefined) fail('a quoted list item is not closed', line);
  if (current.trim() !== '' || items.length > 0) items.push(current);
  return items.map((item) => {
    const value = scalar(item.trim(), line, fail);
    if (value === '') fail('an empty list item', line);
    return value;
  });
}

/** A plain, "double" (JSON escapes) or 'single' ('' is a quote) quoted scalar. */
function scalar(text: string, line: number, fail: (what: string, line: number) => never): string {
  if (text.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'string') return value;
    } catch {}
    return fail(`a "quoted" value must end with its quote: ${text}`, line);
  }
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) fail(`a 'quoted' value must end with its quote: ${text}`, line);
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (/^[&*!%@`]/.test(text)) fail(`a value starting with ${text[0]} must be quoted`, line);
  return text;
}

/** A ` #` outside quotes starts a comment. */
function stripComment(text: string): string {
  let quote: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"') index += 1;
    } else if ((char === '"' || char === "'") && (index === 0 || /[\s[,]/.test(text[index - 1] ?? '')))
      quote = char;
    else if (char === '#' && (index === 0 || /\s/.test(text[index - 1] ?? '')))
      return text.slice(0, index).trimEnd();
  }
  return text;
}
