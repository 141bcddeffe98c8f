import { z } from 'zod';
import type { Tool } from '../../../runtime/tool.ts';

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

export const SearchKnowledgeArgsSchema = z.object({
  query: z.string().trim().min(1).max(200).describe('要查的问题或关键词，例如「NovaTrail X2 退货」'),
  topK: z.number().int().min(1).max(8).optional().describe('返回几段原文，1 到 8，默认 4'),
});
export type SearchKnowledgeArgs = z.infer<typeof SearchKnowledgeArgsSchema>;

export interface KnowledgeEvidence {
  /** The clause that matched. */
  text: string;
  /** The passage around it: read this, since the answer is often the next sentence. */
  context: string;
  /** The heading path, e.g. NovaShop 退货政策 › 一、7 天无理由退货 › 适用范围与时限. */
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

/**
 * `search_knowledge`: NovaShop's policies, product pages and FAQ, as evidence (matched clauses with
 * their passage, section and citation), never a verdict: the model decides what they mean for the
 * question. Hits are distinct passages, so topK is how many passages the model reads.
 */
export function createSearchKnowledgeTool(
  knowledge: KnowledgeSearch,
): Tool<SearchKnowledgeArgs, SearchKnowledgeResult> {
  return {
    name: 'search_knowledge',
    title: '知识检索',
    // The flag catches questions whose words the knowledge lacks; a question near a topic the shop
    // covers but about something it never says scores like an answerable one (docs/retrieval.md: AUC
    // 0.6 to 0.9 by shop), so a model that reads the passages is asked to judge them as well.
    description:
      '检索 NovaShop 的政策条款、商品页和常见问题（退货、退款、换货、配送、运费、尺码、保修、发票、积分等），' +
      '返回命中的条款（text）及其出处（citation）、它所在的整段原文（context，答案常在相邻的句子里；' +
      'contextCitations 依次是 context 每一行的出处）和所在章节。' +
      '回答时只依据返回的原文并注明出处，先引用回答问题的那一句，说同一件事的条款只引用一次，每个出处只引用一次；' +
      'lowEvidence 为 true 表示没找到可靠依据：这时不要把返回的条款当作答案引用，要直说没有找到可靠依据，' +
      '请买家换个说法或转人工客服，不要猜。lowEvidence 为 false 只说明找到了用词相近的条款，不保证它回答了所问的事：' +
      '返回的原文没有直接回答买家问的那件事（例如问能否寄到海外，条款只讲国内运费）时，同样直说没有找到依据，不要拿相近的条款推断。' +
      '知识是中文的：英文问题请带上中文关键词检索。',
    parameters: SearchKnowledgeArgsSchema,
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
