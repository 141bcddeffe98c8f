import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolAuditEntry, ToolAuditLog } from '../tool-audit-log.ts';

export interface ToolAuditLogFixture {
  log: ToolAuditLog;
  close(): Promise<void>;
}

/** An entry with every field set; `fields` override. */
export function auditEntry(fields: Partial<ToolAuditEntry> = {}): ToolAuditEntry {
  return {
    at: 1_750_000_000_000,
    runId: 'run_a',
    conversationId: 'conv_a',
    toolCallId: 'call_1',
    name: 'cancel_order',
    userId: 'usr_ada',
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    face: 'chat',
    executor: 'server',
    effect: 'write',
    args: { orderId: '88235', items: [{ sku: 'AW-S12', quantity: 1 }], note: '不想要了' },
    originalArgs: { orderId: ' 88235 ' },
    decision: 'rewrite',
    policy: 'trim-order-ids',
    reason: 'trimmed the order id',
    outcome: 'done',
    durationMs: 12.5,
    ...fields,
  };
}

/** What every `ToolAuditLog` must do, run against each implementation. */
export function describeToolAuditLogConformance(
  name: string,
  create: () => Promise<ToolAuditLogFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip === true)(`${name} (ToolAuditLog conformance)`, () => {
    let fixture: ToolAuditLogFixture | undefined;
    const log = (): ToolAuditLog => {
      if (fixture === undefined) throw new Error('the fixture is created in beforeEach');
      return fixture.log;
    };
    beforeEach(async () => {
      fixture = await create();
    });
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });

    it('keeps every field of an entry, and leaves optional ones out when absent', async () => {
      const full = auditEntry();
      const minimal: ToolAuditEntry = {
        at: 1,
        runId: 'run_a',
        conversationId: 'conv_a',
        toolCallId: 'call_2',
        name: 'read_local_file',
        userId: 'usr_ada',
        face: 'responses',
        executor: 'host',
        effect: 'host',
        args: null,
        decision: 'deny',
        outcome: 'denied',
      };
      await log().record(full);
      await log().record(minimal);
      const listed = await log().list({ userId: 'usr_ada' });
      expect(listed).toEqual([minimal, full]);
      expect(Object.keys(listed[0] ?? {}).sort()).toEqual(Object.keys(minimal).sort());
    });

    it("lists a user's entries newest first, per run when asked, up to the limit", async () => {
      for (let n = 1; n <= 5; n += 1)
        await log().record(auditEntry({ toolCallId: `call_${n}`, runId: n % 2 === 0 ? 'run_b' : 'run_a' }));
      await log().record(auditEntry({ userId: 'usr_bob', toolCallId: 'call_bob' }));
      const ids = (entries: ToolAuditEntry[]) => entries.map((entry) => entry.toolCallId);
      expect(ids(await log().list({ userId: 'usr_ada' }))).toEqual([
        'call_5',
        'call_4',
        'call_3',
        'call_2',
        'call_1',
      ]);
      expect(ids(await log().list({ userId: 'usr_ada', runId: 'run_b' }))).toEqual(['call_4', 'call_2']);
      expect(ids(await log().list({ userId: 'usr_ada', limit: 2 }))).toEqual(['call_5', 'call_4']);
      expect(ids(await log().list({ userId: 'usr_ada', limit: 0 }))).toEqual(['call_5']);
      expect(ids(await log().list({ userId: 'usr_bob', runId: 'run_b' }))).toEqual([]);
      expect(await log().list({ userId: 'usr_nobody' })).toEqual([]);
    });

    it('hands out copies: mutating an entry after recording or listing changes nothing stored', async () => {
      const entry = auditEntry();
      await log().record(entry);
      (entry.args as { orderId: string }).orderId = 'changed';
      const [listed] = await log().list({ userId: 'usr_ada' });
      expect(listed?.args).toEqual(auditEntry().args);
      (listed?.args as { orderId: string }).orderId = 'changed again';
      expect((await log().list({ userId: 'usr_ada' }))[0]?.args).toEqual(auditEntry().args);
    });
  });
}
