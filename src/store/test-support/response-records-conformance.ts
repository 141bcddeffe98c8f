import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponseRecord, ResponseRecords } from '../response-records.ts';

export interface ResponseRecordsFixture {
  records: ResponseRecords;
  close(): Promise<void>;
}

/** A record with every field set; `fields` override. */
export function responseRecord(fields: Partial<ResponseRecord> = {}): ResponseRecord {
  return {
    id: 'run_resp1',
    userId: 'usr_ada',
    conversationId: 'conv_a',
    createdAt: 1_750_000_000_000,
    model: 'novashop-demo',
    instructions: '只用简体中文回答',
    tools: [
      {
        type: 'function',
        name: 'lookup_stock',
        description: '查询库存',
        parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      },
    ],
    previousResponseId: null,
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    metadata: { channel: 'app' },
    ...fields,
  };
}

/** What every `ResponseRecords` must do, run against each implementation. */
export function describeResponseRecordsConformance(
  name: string,
  create: () => Promise<ResponseRecordsFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip === true)(`${name} (ResponseRecords conformance)`, () => {
    let fixture: ResponseRecordsFixture | undefined;
    const records = (): ResponseRecords => {
      if (fixture === undefined) throw new Error('the fixture is created in beforeEach');
      return fixture.records;
    };
    beforeEach(async () => {
      fixture = await create();
    });
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });

    it('keeps every field of a record and gives it back to its owner only', async () => {
      await records().save(responseRecord());
      expect(await records().get('usr_ada', 'run_resp1')).toEqual(responseRecord());
      // Another user's response is indistinguishable from a missing one.
      expect(await records().get('usr_bob', 'run_resp1')).toBeUndefined();
      expect(await records().get('usr_ada', 'run_missing')).toBeUndefined();
    });

    it('replaces a record saved again under the same id', async () => {
      await records().save(responseRecord());
      await records().save(responseRecord({ previousResponseId: 'run_resp0', metadata: {} }));
      expect(await records().get('usr_ada', 'run_resp1')).toEqual(
        responseRecord({ previousResponseId: 'run_resp0', metadata: {} }),
      );
    });

    it('hands out copies: mutating a record after saving or reading changes nothing stored', async () => {
      const record = responseRecord();
      await records().save(record);
      record.metadata.channel = 'changed';
      const read = await records().get('usr_ada', 'run_resp1');
      if (read === undefined) throw new Error('saved record missing');
      read.tools.length = 0;
      expect(await records().get('usr_ada', 'run_resp1')).toEqual(responseRecord());
    });
  });
}
