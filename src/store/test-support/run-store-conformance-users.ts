import { describe, expect, it } from 'vitest';
import { hashApiToken } from '../api-token.ts';
import { expectStoreError, type RunStoreHarness } from './run-store-harness.ts';

/** Users and their API tokens: created, found by token, and only a token's hash ever stored. */
export function describeUserAndTokenConformance(get: () => RunStoreHarness): void {
  describe('users and tokens', () => {
    it('creates users with a readable id or the id asked for, and finds them', async () => {
      const { store, clock } = get();
      const ada = await store.createUser('Ada');
      expect(ada).toEqual({
        id: expect.stringMatching(/^usr_[0-9a-f]{32}$/),
        name: 'Ada',
        createdAt: clock.now(),
      });
      const demo = await store.createUser('演示用户', { id: 'usr_demo' });
      expect(demo.id).toBe('usr_demo');
      expect(await store.getUser(ada.id)).toEqual(ada);
      expect(await store.getUser('usr_demo')).toEqual(demo);
      expect(await store.getUser('usr_nobody')).toBeUndefined();
    });

    it('refuses a user id that is taken', async () => {
      const { store } = get();
      await store.createUser('Ada', { id: 'usr_demo' });
      const error = await expectStoreError(store.createUser('Bob', { id: 'usr_demo' }), 'already_exists');
      expect(error.existingId).toBe('usr_demo');
      expect((await store.getUser('usr_demo'))?.name).toBe('Ada');
    });

    it('issues random URL-safe tokens that find their user', async () => {
      const { store } = get();
      const ada = await store.createUser('Ada');
      const bob = await store.createUser('Bob');
      const first = await store.issueToken(ada.id, 'laptop');
      const second = await store.issueToken(ada.id);
      const bobs = await store.issueToken(bob.id);
      for (const token of [first, second, bobs]) expect(token).toMatch(/^rs_[A-Za-z0-9_-]{43}$/);
      expect(new Set([first, second, bobs]).size).toBe(3);
      expect(await store.findUserByToken(first)).toEqual(ada);
      expect(await store.findUserByToken(second)).toEqual(ada);
      expect(await store.findUserByToken(bobs)).toEqual(bob);
    });

    it('lists users oldest first, and a user’s tokens by id, never the tokens themselves', async () => {
      const { store, clock } = get();
      const ada = await store.createUser('Ada');
      clock.advance(1);
      const bob = await store.createUser('Bob');
      expect(await store.listUsers()).toEqual([ada, bob]);
      const laptop = await store.issueToken(ada.id, 'laptop');
      clock.advance(1);
      const phone = await store.issueToken(ada.id);
      await store.issueToken(bob.id, 'bob');
      const tokens = await store.listTokens(ada.id);
      expect(tokens).toEqual([
        {
          id: `tok_${hashApiToken(laptop).slice(0, 16)}`,
          userId: ada.id,
          label: 'laptop',
          createdAt: clock.now() - 1,
        },
        {
          id: `tok_${hashApiToken(phone).slice(0, 16)}`,
          userId: ada.id,
          label: null,
          createdAt: clock.now(),
        },
      ]);
      expect(JSON.stringify(tokens)).not.toContain(laptop);
      expect(await store.listTokens('usr_nobody')).toEqual([]);
    });

    it('revokes a token by id: it finds nobody after, and nothing else changes', async () => {
      const { store } = get();
      const ada = await store.createUser('Ada');
      const bob = await store.createUser('Bob');
      const kept = await store.issueToken(ada.id);
      const revoked = await store.issueToken(ada.id);
      const bobs = await store.issueToken(bob.id);
      const id = `tok_${hashApiToken(revoked).slice(0, 16)}`;
      expect(await store.revokeToken(id)).toBe(true);
      expect(await store.findUserByToken(revoked)).toBeUndefined();
      expect(await store.findUserByToken(kept)).toEqual(ada);
      expect(await store.findUserByToken(bobs)).toEqual(bob);
      expect((await store.listTokens(ada.id)).map((token) => token.id)).toEqual([
        `tok_${hashApiToken(kept).slice(0, 16)}`,
      ]);
      // Again, unknown, malformed: nothing to revoke.
      expect(await store.revokeToken(id)).toBe(false);
      expect(await store.revokeToken('tok_0000000000000000')).toBe(false);
      for (const malformed of ['', 'tok_', 'tok_XYZ', revoked, `${id}0`, "tok_' OR 1=1 --"])
        expect(await store.revokeToken(malformed)).toBe(false);
      expect(await store.findUserByToken(kept)).toEqual(ada);
    });

    it('finds nobody for an unknown, altered or empty token', async () => {
      const { store } = get();
      const ada = await store.createUser('Ada');
      const token = await store.issueToken(ada.id);
      expect(await store.findUserByToken(`${token}x`)).toBeUndefined();
      expect(await store.findUserByToken(token.toUpperCase())).toBeUndefined();
      expect(await store.findUserByToken('rs_unknown')).toBeUndefined();
      expect(await store.findUserByToken('')).toBeUndefined();
    });

    it('adds a caller-chosen token, again without harm for the same user, never for another', async () => {
      const { store } = get();
      const demo = await store.createUser('Demo', { id: 'usr_demo' });
      const other = await store.createUser('Other');
      await store.addToken(demo.id, 'demo-token-from-env', 'RUNSTREAM_DEMO_TOKEN');
      // Every start-up adds the demo token again.
      await store.addToken(demo.id, 'demo-token-from-env', 'RUNSTREAM_DEMO_TOKEN');
      expect(await store.findUserByToken('demo-token-from-env')).toEqual(demo);
      await expectStoreError(store.addToken(other.id, 'demo-token-from-env'), 'already_exists');
      expect(await store.findUserByToken('demo-token-from-env')).toEqual(demo);
      await expectStoreError(store.addToken(demo.id, ''), 'invalid_argument');
    });

    it('refuses tokens for unknown users', async () => {
      const { store } = get();
      await expectStoreError(store.issueToken('usr_nobody'), 'not_found');
      await expectStoreError(store.addToken('usr_nobody', 'some-token'), 'not_found');
      expect(await store.findUserByToken('some-token')).toBeUndefined();
    });

    it('persists the hash of a token, never the token', async (context) => {
      const { store, fixture } = get();
      if (fixture.persistedText === undefined) return context.skip();
      const ada = await store.createUser('Ada');
      const issued = await store.issueToken(ada.id);
      await store.addToken(ada.id, 'demo-token-4c1f9e', 'demo');
      const persisted = await fixture.persistedText();
      // The hashes are there, which proves the text is where the store keeps its data.
      expect(persisted).toContain(hashApiToken(issued));
      expect(persisted).toContain(hashApiToken('demo-token-4c1f9e'));
      expect(persisted).not.toContain(issued);
      expect(persisted).not.toContain(issued.slice(3));
      expect(persisted).not.toContain('demo-token-4c1f9e');
    });
  });
}
