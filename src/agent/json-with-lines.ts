import { AgentDefinitionError } from './agent-definition-error.ts';

/** A JSON document with the line each value starts on (an object member: its key's line). */
export interface JsonWithLines {
  value: unknown;
  /** By path, segments joined with `.` (`tools.book_repair.card`, `ui.examples.0`); the root is ``. */
  lines: ReadonlyMap<string, number>;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Parse JSON as `JSON.parse` does (no comments, no trailing commas), keeping the line of every
 * value, so a problem found later (an unknown key, a wrong type) is reported at its line. A syntax
 * error or a key given twice is an `AgentDefinitionError` naming `file` and the line.
 */
export function parseJsonWithLines(text: string, file: string): JsonWithLines {
  const lines = new Map<string, number>();
  let position = 0;
  let line = 1;
  const source = text.replace(/^\uFEFF/, '');

  const fail = (what: string): never => {
    throw new AgentDefinitionError(`invalid JSON: ${what}`, { file, line });
  };
  const describe = () => (position >= source.length ? 'end of file' : JSON.stringify(source[position]));
  const skipSpace = () => {
    while (position < source.length) {
      const char = source[position];
      if (char === '\n') line += 1;
      else if (char !== ' ' && char !== '\t' && char !== '\r') return;
      position += 1;
    }
  };
  const expect = (char: string) => {
    skipSpace();
    if (source[position] !== char) fail(`expected ${JSON.stringify(char)} but found ${describe()}`);
    position += 1;
  };

  const parseString = (): string => {
    const start = position;
    position += 1;
    while (position < source.length && source[position] !== '"') {
      if (source[position] === '\n') fail('a string runs past the end of its line');
      position += source[position] === '\\' ? 2 : 1;
    }
    if (position >= source.length) fail('a string is not closed');
    position += 1;
    try {
      return JSON.parse(source.slice(start, position)) as string;
    } catch (error) {
      return fail(`a string is not valid (${(error as Error).message})`);
    }
  };

  const parseValue = (path: string): unknown => {
    skipSpace();
    lines.set(path, lines.get(path) ?? line);
    const char = source[position];
    if (char === '{') return parseObject(path);
    if (char === '[') return parseArray(path);
    if (char === '"') return parseString();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const)
      if (source.startsWith(word, position)) {
        position += word.length;
        return value;
      }
    NUMBER.lastIndex = position;
    const number = NUMBER.exec(source);
    if (number !== null) {
      position += number[0].length;
      return Number(number[0]);
    }
    return fail(`unexpected ${describe()}`);
  };

  const parseObject = (path: string): Record<string, unknown> => {
    const object: Record<string, unknown> = {};
    position += 1;
    skipSpace();
    if (source[position] === '}') {
      position += 1;
      return object;
    }
    for (;;) {
      skipSpace();
      if (source[position] !== '"') fail(`expected a key in quotes but found ${describe()}`);
      const keyLine = line;
      const key = parseString();
      const child = path === '' ? key : `${path}.${key}`;
      if (Object.hasOwn(object, key)) fail(`the key "${key}" appears twice`);
      lines.set(child, keyLine);
      expect(':');
      object[key] = parseValue(child);
      skipSpace();
      if (source[position] === ',') {
        position += 1;
        continue;
      }
      if (source[position] === '}') {
        position += 1;
        return object;
      }
      fail(`expected "," or "}" but found ${describe()}`);
    }
  };

  const parseArray = (path: string): unknown[] => {
    const array: unknown[] = [];
    position += 1;
    skipSpace();
    if (source[position] === ']') {
      position += 1;
      return array;
    }
    for (;;) {
      array.push(parseValue(path === '' ? String(array.length) : `${path}.${array.length}`));
      skipSpace();
      if (source[position] === ',') {
        position += 1;
        continue;
      }
      if (source[position] === ']') {
        position += 1;
        return array;
      }
      fail(`expected "," or "]" but found ${describe()}`);
    }
  };

  const value = parseValue('');
  skipSpace();
  if (position < source.length) fail(`unexpected ${describe()} after the end of the document`);
  return { value, lines };
}
