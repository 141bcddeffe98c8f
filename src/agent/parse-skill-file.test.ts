import { describe, expect, it } from 'vitest';
import { AgentDefinitionError } from './agent-definition-error.ts';
import { parseSkillFile } from './parse-skill-file.ts';

function problem(text: string): { line: number | undefined; reason: string } {
  try {
    parseSkillFile(text, 'skills/a/SKILL.md');
  } catch (error) {
    if (error instanceof AgentDefinitionError) return { line: error.line, reason: error.reason };
    throw error;
  }
  throw new Error('expected an AgentDefinitionError');
}

describe('parseSkillFile', () => {
  it('reads plain and quoted scalars, comments, a flow list and the body', () => {
    const file = parseSkillFile(
      [
        '---',
        '# a comment',
        'name: warranty',
        "title: 'It''s the warranty'",
        'description: "Read before a warranty question: \\"in\\" or \\"out\\"" # why',
        'tools: [check_warranty, "book_repair", \'order_part\']',
        '---',
        '',
        '# Warranty',
        'Two years.',
        '',
      ].join('\n'),
      'SKILL.md',
    );
    expect(file).toEqual({
      skill: {
        name: 'warranty',
        title: "It's the warranty",
        description: 'Read before a warranty question: "in" or "out"',
        instructions: '# Warranty\nTwo years.',
        tools: ['check_warranty', 'book_repair', 'order_part'],
      },
      nameLine: 3,
      toolsLine: 6,
    });
  });

  it('reads a block list of "- item" lines, and an empty one', () => {
    const block = parseSkillFile(
      '---\nname: a\ndescription: b\ntools:\n  - x\n\n  - "y z" # note\n---\nbody',
      'f',
    );
    expect(block.skill.tools).toEqual(['x', 'y z']);
    expect(block.toolsLine).toBe(4);
    expect(parseSkillFile('---\nname: a\ndescription: b\ntools: []\n---\n', 'f').skill.tools).toEqual([]);
    expect(parseSkillFile('---\nname: a\ndescription: b\ntools:\n---\n', 'f').skill.tools).toEqual([]);
    expect(parseSkillFile('\uFEFF---\r\nname: a\r\ndescription: b # c\r\n---\r\nbody', 'f').skill).toEqual({
      name: 'a',
      description: 'b',
      instructions: 'body',
    });
  });

  it.each([
    ['no front matter', '# Title\n', 1, 'a SKILL.md starts with a front matter between --- lines'],
    ['no closing line', '---\nname: a\n', 1, 'the front matter has no closing --- line'],
    ['no name', '---\ndescription: b\n---\n', 1, 'the front matter needs "name"'],
    ['no description', '---\nname: a\n---\n', 1, 'the front matter needs "description"'],
    ['an empty description', '---\nname: a\ndescription:\n---\n', 3, '"description" is empty'],
    [
      'an unknown key',
      '---\nname: a\ndescription: b\nunlocks: [x]\n---\n',
      4,
      'unknown key "unlocks" (known: name, title, description, tools)',
    ],
    ['a key twice', '---\nname: a\nname: b\n---\n', 3, '"name" appears twice'],
    [
      'a line that is not key: value',
      '---\nname: a\njust text\n---\n',
      3,
      'expected "key: value", found "just text"',
    ],
    [
      'unexpected indentation',
      '---\nname: a\n  description: b\n---\n',
      3,
      'unexpected indentation (only "- item" lines of a list are indented)',
    ],
    [
      'a list item without a key',
      '---\nname: a\n- x\n---\n',
      3,
      'a "- item" line belongs under a key (e.g. "tools:")',
    ],
    [
      'a folded value',
      '---\nname: a\ndescription: >\n  b\n---\n',
      3,
      'multi-line values (| and >) are not supported: write the value on one line',
    ],
    [
      'an unclosed flow list',
      '---\nname: a\ndescription: b\ntools: [x, y\n---\n',
      4,
      'a list that starts with [ must end with ] on the same line',
    ],
    [
      'a nested list',
      '---\nname: a\ndescription: b\ntools: [[x]]\n---\n',
      4,
      'lists inside lists, and objects, are not supported',
    ],
    ['an empty item', '---\nname: a\ndescription: b\ntools: [x, , y]\n---\n', 4, 'an empty list item'],
    [
      'an unclosed quote',
      '---\nname: "a\ndescription: b\n---\n',
      2,
      'a "quoted" value must end with its quote: "a',
    ],
    [
      'tools as text',
      '---\nname: a\ndescription: b\ntools: x, y\n---\n',
      4,
      '"tools" must be a list: tools: [a, b], or "- a" lines under "tools:"',
    ],
    ['a name that is a list', '---\nname: [a]\ndescription: b\n---\n', 2, '"name" must be text, not a list'],
    [
      'an object',
      '---\nname: a\ndescription: { b: c }\n---\n',
      3,
      'objects ({ … }) are not supported in a skill’s front matter',
    ],
  ])('refuses %s, at its line', (_case, text, line, reason) => {
    expect(problem(text)).toEqual({ line, reason });
  });

  it('names the file in the message', () => {
    expect(() => parseSkillFile('---\nname: a\n', 'skills/a/SKILL.md')).toThrow(
      'skills/a/SKILL.md:1: the front matter has no closing --- line',
    );
  });
});
