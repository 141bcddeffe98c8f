import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileAgentTool } from '../../../src/agent/compile-agent-tool.ts';
import { parseSkillFile } from '../../../src/agent/parse-skill-file.ts';
import { type KnowledgeSearch, searchKnowledgeTool } from '../../../src/agent/search-knowledge-tool.ts';
import type { IngestSummary, KnowledgeBase } from '../../../src/retrieval/index.ts';
import { createTextAnalyzer, type TextAnalyzer } from '../../../src/retrieval/text/index.ts';
import type { AnyTool, Skill } from '../../../src/runtime/index.ts';
import type { OrderRepository } from '../orders/order-repository.ts';
import { createNovaShopTools } from '../shop-tools/create-novashop-tools.ts';

// The example's folder as the server reads it, for tests that drive its parts without a server:
// the knowledge ingested as `loadAgent` + the server ingest it, the skills as `loadAgent` parses
// them, the tools compiled as `resolveAgent` compiles them.

/** The example's folder: citations read `knowledge/policies/…#L21` relative to it. */
export const NOVASHOP_DIRECTORY = fileURLToPath(new URL('..', import.meta.url));
export const NOVASHOP_KNOWLEDGE_DIRECTORY = join(NOVASHOP_DIRECTORY, 'knowledge');
export const NOVASHOP_SYNONYMS_PATH = join(NOVASHOP_DIRECTORY, 'synonyms.txt');
const KNOWLEDGE_DESCRIPTION = (
  JSON.parse(readFileSync(join(NOVASHOP_DIRECTORY, 'agent.json'), 'utf8')) as {
    knowledge: { description: string };
  }
).knowledge.description;

let analyzer: TextAnalyzer | undefined;

/** The general analyser plus the example's synonym table. */
export function createNovaShopAnalyzer(): TextAnalyzer {
  analyzer ??= createTextAnalyzer({ synonyms: readFileSync(NOVASHOP_SYNONYMS_PATH, 'utf8') });
  return analyzer;
}

export function ingestNovaShopKnowledge(knowledge: Pick<KnowledgeBase, 'ingest'>): Promise<IngestSummary> {
  return knowledge.ingest([NOVASHOP_KNOWLEDGE_DIRECTORY], { baseDirectory: NOVASHOP_DIRECTORY });
}

/** The three handbooks under skills/, as the runtime holds them. */
export function loadNovaShopSkills(): Skill[] {
  const directory = join(NOVASHOP_DIRECTORY, 'skills');
  return readdirSync(directory)
    .sort()
    .map((name) => {
      const file = join(directory, name, 'SKILL.md');
      const { skill } = parseSkillFile(readFileSync(file, 'utf8'), file);
      return {
        name: skill.name,
        title: skill.title ?? skill.name,
        description: skill.description,
        body: skill.instructions,
        unlocksTools: [...(skill.tools ?? [])],
      };
    });
}

/** `query_order`, `cancel_order` (unlocked by `order-change`) and `search_knowledge`, compiled. */
export function novaShopRuntimeTools(orders: OrderRepository, knowledge: KnowledgeSearch): AnyTool[] {
  return [
    ...createNovaShopTools({ orders }).map((tool) =>
      tool.name === 'cancel_order'
        ? { ...compileAgentTool(tool), requiresSkill: 'order-change' }
        : compileAgentTool(tool),
    ),
    searchKnowledgeTool(knowledge, { language: 'zh-CN', description: KNOWLEDGE_DESCRIPTION }),
  ];
}
