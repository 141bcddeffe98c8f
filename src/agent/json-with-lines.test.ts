import { describe, expect, it } from 'vitest';
import { AgentDefinitionError } from './agent-definition-error.ts';
import { parseJsonWithLines } from './json-with-lines.ts';

describe('parseJsonWithLines', () => {
  it('parses what JSON.parse parses, with the line of every key and item', () => {
    const text =
      '{\n  "a": 1,\n  "b": {\n    "c": [true,\n      null, "x\\u00e9\\n"]\n  },\n  "d": -2.5e3\n}';
    const { value, lines } = parseJsonWithLines(text, 'f.json');
    expect(value).toEqual(JSON.parse(text));
    expect(Object.fromEntries(lines)).toEqual({
      '': 1,
      a: 2,
      b: 3,
      'b.c': 4,
      'b.c.0': 4,
      'b.c.1': 5,
      'b.c.2': 5,
      d: 7,
    });
  });

  it.each([
    ['a missing comma', '{\n  "a": 1\n  "b": 2\n}', 3, 'invalid JSON: expected "," or "}" but found "\\""'],
    ['a trailing comma', '{\n  "a": 1,\n}', 3, 'invalid JSON: expected a key in quotes but found "}"'],
    ['a comment', '{\n  // no\n}', 2, 'invalid JSON: expected a key in quotes but found "/"'],
    ['a key twice', '{\n  "a": 1,\n  "a": 2\n}', 3, 'invalid JSON: the key "a" appears twice'],
    ['an unclosed string', '{\n  "a": "b\n}', 2, 'invalid JSON: a string runs past the end of its line'],
    ['text after the document', '{}\n\n{}', 3, 'invalid JSON: unexpected "{" after the end of the document'],
    ['an empty file', '', 1, 'invalid JSON: unexpected end of file'],
  ])('refuses %s at its line', (_case, text, line, reason) => {
    let caught: unknown;
    try {
      parseJsonWithLines(text, 'agent.json');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AgentDefinitionError);
    expect(caught).toMatchObject({ file: 'agent.json', line, reason });
  });
});
