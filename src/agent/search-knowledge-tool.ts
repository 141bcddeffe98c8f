import { z } from 'zod';
import type { Tool } from '../runtime/index.ts';
import type { AgentLanguage } from './agent.ts';

export const SEARCH_KNOWLEDGE_TOOL = 'search_knowledge';

/** One hit as the knowledge base returns it (`src/retrieval` `SearchHit`, the fields used here). */
export interface KnowledgeHit {
  text: string;
  /** The clause's parent passage (see `SearchHit.context`); a fake may leave it out. */
  context?: string;
  /** The source line of each line of `context`. */
  contextLines?: readonly number[];
  title: string;
  headingPath: readonly string[];
  source: { citation: string; path?: string };
}

/** What `search_knowledge` needs: `KnowledgeBase` satisfies it, and so does a test fake. */
export interface KnowledgeSearch {
  search(
    query: string,
    options: { topK: number; signal?: AbortSignal },
  ): Promise<{ hits: readonly KnowledgeHit[]; lowEvidence: boolean }>;
}

export interface KnowledgeEvidence {
  /** The clause that matched. */
  text: string;
  /** The passage around it: read this, since the answer is often the next sentence. */
  context: string;
  /** The heading path, e.g. 保修政策 › 一、保修期 › 整机保修. */
  section: string;
  /** `path#L12`: cite it next to the clause. */
  citation: string;
  /** Where each line of `context` is (`path#L12`, one per line): cite a quote from it by its own line. */
  contextCitations: string[];
}

export interface SearchKnowledgeResult {
  query: string;
  /** True when nothing convincing was found: say so rather than guess. */
  lowEvidence: boolean;
  hits: KnowledgeEvidence[];
}

export const SEARCH_KNOWLEDGE_DEFAULT_TOP_K = 4;

/** The texts of the tool in each language: what it searches (replaceable) and how to use what it finds. */
const TEXTS: Record<
  AgentLanguage,
  { title: string; what: string; usage: string; query: string; topK: string }
> = {
  'zh-CN': {
    title: '知识检索',
    what: '检索知识库中的文档（政策条款、产品资料、常见问题等）。',
    // The flag catches questions whose words the knowledge lacks; a question near a covered topic
    // but about something it never says scores like an answerable one (docs/retrieval.md), so a
    // model that reads the passages is asked to judge them as well.
    usage:
      '返回命中的条款（text）及其出处（citation）、它所在的整段原文（context，答案常在相邻的句子里；' +
      'contextCitations 依次是 context 每一行的出处）和所在章节。' +
      '回答时只依据返回的原文并注明出处，先引用回答问题的那一句，说同一件事的条款只引用一次，每个出处只引用一次；' +
      'lowEvidence 为 true 表示没找到可靠依据：这时不要把返回的条款当作答案引用，要直说没有找到可靠依据，不要猜。' +
      'lowEvidence 为 false 只说明找到了用词相近的条款，不保证它回答了所问的事：' +
      '返回的原文没有直接回答所问的那件事时，同样直说没有找到依据，不要拿相近的条款推断。',
    query: '要查的问题或关键词',
    topK: '返回几段原文，1 到 8，默认 4',
  },
  en: {
    title: 'Knowledge search',
    what: 'Search the documents of the knowledge base (policies, product information, FAQ and the like).',
    usage:
      'Returns the matching clauses (text) with their source (citation), the whole passage around each ' +
      '(context: the answer is often in the next sentence; contextCitations gives the source of each of its ' +
      'lines) and its section. Answer only from the returned text and cite the source: quote the sentence that ' +
      'answers the question first, cite clauses that say the same thing once, and each source once. ' +
      'lowEvidence true means nothing reliable was found: do not quote the returned clauses as the answer; ' +
      'say plainly that nothing reliable was found, and do not guess. lowEvidence false only means clauses ' +
      'with similar words were found, not that they answer the question: when the returned text does not ' +
      'answer what was asked, say so as well instead of inferring from a similar clause. Search in the ' +
      "knowledge's own language.",
    query: 'The question or keywords to look up',
    topK: 'How many passages to return, 1 to 8, default 4',
  },
};

function argsSchema(language: AgentLanguage) {
  const texts = TEXTS[language];
  return z.object({
    query: z.string().trim().min(1).max(200).describe(texts.query),
    topK: z.number().int().min(1).max(8).optional().describe(texts.topK),
  });
}

export type SearchKnowledgeArgs = z.infer<ReturnType<typeof argsSchema>>;

export interface SearchKnowledgeToolOptions {
  /** The language of its title and description; default zh-CN. */
  language?: AgentLanguage;
  /** What the knowledge holds, for the model (agent.json's `knowledge.description`): replaces the default first sentence. */
  description?: string;
}

/**
 * `search_knowledge`: the agent's documents as evidence (matched clauses with their passage, section
 * and citation), never a verdict: the model decides what they mean for the question. Hits are
 * distinct passages, so topK is how many passages the model reads. The description's first sentence
 * says what the knowledge holds (the agent's `knowledge.description` replaces it); the rest tells
 * the model how to use and cite what it finds, whatever the knowledge.
 */
export function searchKnowledgeTool(
  knowledge: KnowledgeSearch,
  options: SearchKnowledgeToolOptions = {},
): Tool<SearchKnowledgeArgs, SearchKnowledgeResult> {
  const language = options.language ?? 'zh-CN';
  const texts = TEXTS[language];
  const what = options.description?.trim() || texts.what;
  // An author's sentence may end without a full stop; the usage must not run on from it.
  const ended = /[。．.!！?？]$/.test(what) ? what : `${what}${language === 'en' ? '.' : '。'}`;
  return {
    name: SEARCH_KNOWLEDGE_TOOL,
    title: texts.title,
    description: `${ended}${language === 'en' ? ' ' : ''}${texts.usage}`,
    parameters: argsSchema(language),
    effect: 'read',
    timeoutMs: 15_000,
    async execute(args, context) {
      context.signal.throwIfAborted();
      const result = await knowledge.search(args.query, {
        topK: args.topK ?? SEARCH_KNOWLEDGE_DEFAULT_TOP_K,
        signal: context.signal,
      });
      return {
        query: args.query,
        lowEvidence: result.lowEvidence,
        hits: result.hits.map((hit) => ({
          text: hit.text,
          context: hit.context ?? hit.text,
          section: hit.headingPath.length > 0 ? hit.headingPath.join(' › ') : hit.title,
          citation: hit.source.citation,
          contextCitations:
            hit.contextLines !== undefined && hit.source.path !== undefined
              ? hit.contextLines.map((line) => `${hit.source.path}#L${line}`)
              : [hit.source.citation],
        })),
      };
    },
  };
}
