import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ControlChannel, ControlSignal } from '../control-channel.ts';

export interface ControlChannelFixture {
  channel: ControlChannel;
  /** The channel as another instance has it (the same object in memory). */
  peer: ControlChannel;
  close(): Promise<void>;
}

async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting for a signal');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** What every `ControlChannel` must do, run against each implementation. */
export function describeControlChannelConformance(
  name: string,
  create: () => Promise<ControlChannelFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip === true)(`${name} (ControlChannel conformance)`, () => {
    let fixture: ControlChannelFixture | undefined;
    beforeEach(async () => {
      fixture = await create();
    });
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });
    const get = () => {
      if (fixture === undefined) throw new Error('no fixture');
      return fixture;
    };

    it('delivers a signal to every subscriber, on both sides, in the order sent', async () => {
      const { channel, peer } = get();
      const heardHere: ControlSignal[] = [];
      const heardThere: ControlSignal[] = [];
      await channel.subscribe((signal) => heardHere.push(signal));
      await peer.subscribe((signal) => heardThere.push(signal));
      for (const runId of ['run_a', 'run_b', 'run_c']) await channel.publish({ runId, kind: 'stop' });
      await waitFor(() => heardHere.length === 3 && heardThere.length === 3);
      expect(heardThere.map((signal) => signal.runId)).toEqual(['run_a', 'run_b', 'run_c']);
      expect(heardHere).toEqual(heardThere);
    });

    it('stops delivering to a listener that unsubscribed', async () => {
      const { channel, peer } = get();
      const heard: string[] = [];
      const kept: string[] = [];
      const unsubscribe = await peer.subscribe((signal) => heard.push(signal.runId));
      await peer.subscribe((signal) => kept.push(signal.runId));
      await channel.publish({ runId: 'run_a', kind: 'stop' });
      await waitFor(() => heard.length === 1);
      unsubscribe();
      await channel.publish({ runId: 'run_b', kind: 'stop' });
      await waitFor(() => kept.length === 2);
      expect(heard).toEqual(['run_a']);
    });
  });
}
