import { z } from 'zod';

/**
 * An agent as `GET /v1/agents` describes it (docs/api.md): what a page shows of it (its title,
 * greeting and example prompts) so one page serves any agent. Unknown fields are dropped, so a newer
 * server adding some does not break this client; a server without greeting or examples gets none.
 */
export const AgentSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  language: z.string(),
  ui: z.object({
    title: z.string(),
    greeting: z.string().optional(),
    examples: z.array(z.string()).default([]),
  }),
});
export type AgentSummary = z.infer<typeof AgentSummarySchema>;

/** The first agent is the server's default: the one a conversation created without `agentId` gets. */
export const AgentListSchema = z.object({ agents: z.array(AgentSummarySchema) });
