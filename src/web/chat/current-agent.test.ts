import { describe, expect, it } from 'vitest';
import type { AgentSummary } from '../../client/index.ts';
import { type ChatSnapshot, EMPTY_CONVERSATION, initialSnapshot } from '../../react/index.ts';
import { currentAgent, selectedAgent } from './current-agent.ts';

/** Whose title, greeting and examples the page shows, in each state a conversation can be in. */
const SHOP: AgentSummary = {
  id: 'shop',
  name: '商城',
  language: 'zh-CN',
  ui: { title: '商城', examples: [] },
};
const REPAIR: AgentSummary = {
  id: 'repair',
  name: '报修',
  language: 'zh-CN',
  ui: { title: '报修', examples: [] },
};

function snapshot(change: Partial<ChatSnapshot>): ChatSnapshot {
  return { ...initialSnapshot(), agents: [SHOP, REPAIR], ...change };
}

describe('currentAgent', () => {
  it('is nobody before the agents are known, so the page shows its generic title', () => {
    expect(currentAgent(initialSnapshot())).toBeUndefined();
  });

  it('is the chosen agent for a new conversation, else the default', () => {
    expect(currentAgent(snapshot({}))).toBe(SHOP);
    expect(currentAgent(snapshot({ selectedAgentId: 'repair' }))).toBe(REPAIR);
    // A choice the server does not run (any more) falls back to the default, never to nobody.
    expect(currentAgent(snapshot({ selectedAgentId: 'gone' }))).toBe(SHOP);
  });

  it('is the open conversation’s agent, whatever is chosen for the next one', () => {
    const conversation = { ...EMPTY_CONVERSATION, id: 'c1', status: 'ready' as const, agentId: 'repair' };
    expect(currentAgent(snapshot({ conversation, selectedAgentId: 'shop' }))).toBe(REPAIR);
  });

  it('takes a loading conversation’s agent from the list, and shows nobody’s when the list does not say', () => {
    const loading = { ...EMPTY_CONVERSATION, id: 'c1', status: 'loading' as const };
    const listed = [{ id: 'c1', title: '洗衣机', agentId: 'repair', createdAt: 1 }];
    expect(currentAgent(snapshot({ conversation: loading, conversations: listed }))).toBe(REPAIR);
    expect(currentAgent(snapshot({ conversation: loading, selectedAgentId: 'shop' }))).toBeUndefined();
  });

  it('gives a conversation an older server stored without an agent to the default agent', () => {
    const ready = { ...EMPTY_CONVERSATION, id: 'c1', status: 'ready' as const };
    expect(currentAgent(snapshot({ conversation: ready, selectedAgentId: 'repair' }))).toBe(SHOP);
  });
});

describe('selectedAgent', () => {
  it('is the chosen agent, else the default', () => {
    expect(selectedAgent(snapshot({ selectedAgentId: 'repair' }))).toBe(REPAIR);
    expect(selectedAgent(snapshot({}))).toBe(SHOP);
    expect(selectedAgent(initialSnapshot())).toBeUndefined();
  });
});
