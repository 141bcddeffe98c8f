/** What the page and `GET /v1/agents` show of an agent. */
export interface AgentCard {
  id: string;
  name: string;
  description?: string;
  language: string;
  ui: { title: string; greeting?: string; examples: string[] };
}
