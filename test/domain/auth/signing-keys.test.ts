import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT, jwtVerify } from 'jose';
import { ManualClock } from '../../../src/domain/clock.js';
import { SigningKeys, longestTokenLifetimeS } from '../../../src/domain/auth/signing-keys.js';
import type { Database } from '../../../src/store/database.js';
import type { Store } from '../../../src/store/store.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../../helpers/databases.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`signing keys on ${target.name}`, { skip: target.skip }, () => {
    let database: Database;
    let store: Store;
    before(async () => {
      ({ database, store } = await openMigratedStore(await target.createUrl()));
    });
    after(() => database?.close());

    test('the first start creates one key; a second instance loads the same key', async () => {
      const clock = new ManualClock();
      const first = new SigningKeys(store.signingKeys, clock);
      await first.start();
      const second = new SigningKeys(store.signingKeys, clock);
      await second.start();
      assert.equal(first.signingKey().kid, second.signingKey().kid);
      assert.equal((await first.jwks()).keys.length, 1);
    });

    test('after rotation the new key signs, the previous one still verifies until its tokens expired', async () => {
      const clock = new ManualClock();
      const keys = new SigningKeys(store.signingKeys, clock);
      await keys.start();
      const old = keys.signingKey();
      const token = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'EdDSA', kid: old.kid }).sign(old.privateKey);

      const newKid = await keys.rotate();
      assert.notEqual(newKid, old.kid);
      assert.equal(keys.signingKey().kid, newKid);
      const jwks = await keys.jwks();
      assert.deepEqual(jwks.keys.map((k) => k.kid).sort(), [newKid, old.kid].sort());
      for (const key of jwks.keys) {
        assert.equal(key.alg, 'EdDSA');
        assert.equal(key.crv, 'Ed25519');
        assert.equal('d' in key, false, 'no private part in the JWKS');
      }
      const verifyingKey = await keys.verificationKey(old.kid);
      assert.ok(verifyingKey);
      await jwtVerify(token, verifyingKey);

      clock.advance((longestTokenLifetimeS + 61) * 1000);
      assert.equal(await keys.verificationKey(old.kid), undefined);
      assert.deepEqual(
        (await keys.jwks()).keys.map((k) => k.kid),
        [newKid],
      );
    });

    test('an instance learns of a rotation made elsewhere when it meets the new kid', async () => {
      const clock = new ManualClock();
      const server = new SigningKeys(store.signingKeys, clock);
      await server.start();
      const cli = new SigningKeys(store.signingKeys, clock);
      await cli.start();
      const rotated = await cli.rotate();
      clock.advance(10_000);
      assert.ok(await server.verificationKey(rotated));
      assert.equal(await server.verificationKey('forged-kid'), undefined);
    });
  });
}
