import type { ConfirmationDecision } from '../../client/index.ts';

/**
 * What an assistant message's blocks can ask of the page. `useRunstreamChat` returns one ready to
 * pass (`chat.actions`); every field is optional for a page that shows messages read-only.
 */
export interface MessageActions {
  /** Approve or reject the write behind a confirmation card (the block's `toolCallId`). */
  decide(toolCallId: string, decision: ConfirmationDecision): void;
  /** Cards whose decision is in flight: their buttons are disabled so a double click sends once. */
  deciding: ReadonlySet<string>;
  /** A decision the server refused (e.g. 409 decision_conflict), shown on the card; keyed by toolCallId. */
  decisionErrors: ReadonlyMap<string, string>;
  /**
   * Open a cited knowledge source, e.g. `knowledge/policies/order-changes.md#L21`, with the
   * passage the run's knowledge search gave for it, when the message has one.
   */
  openSource(citation: string, evidence?: SourceEvidence): void;
}

/** What `search_knowledge` returned for a citation: the cited clause (or line) in its passage. */
export interface SourceEvidence {
  /** What to mark in `context`: the matched clause, or the passage's line the citation names. */
  text: string;
  context: string;
  section: string;
}
