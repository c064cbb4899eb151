import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT, jwtVerify } from 'jose';
import { ManualClock } from '../../../src/domain/clock.js';
import { SealedUnderAnotherKeyError, SigningKeys, longestTokenLifetimeS } from '../../../src/domain/auth/signing-keys.js';
import { isSealedSecret, unsealSecret } from '../../../src/domain/identity/secrets.js';
import type { Database } from '../../../src/store/database.js';
import type { Store } from '../../../src/store/store.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../../helpers/databases.js';

after(cleanupStores);

const sealingKey = randomBytes(32).toString('base64');

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
      const first = new SigningKeys(store.signingKeys, clock, sealingKey);
      await first.start();
      const second = new SigningKeys(store.signingKeys, clock, sealingKey);
      await second.start();
      assert.equal(first.signingKey().kid, second.signingKey().kid);
      assert.equal((await first.jwks()).keys.length, 1);
    });

    test('after rotation the new key signs, the previous one still verifies until its tokens expired', async () => {
      const clock = new ManualClock();
      const keys = new SigningKeys(store.signingKeys, clock, sealingKey);
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

    test('private parts are stored sealed; another sealing key is refused before anything changes', async () => {
      const clock = new ManualClock();
      const keys = new SigningKeys(store.signingKeys, clock, sealingKey);
      await keys.start();
      const stored = await store.signingKeys.list();
      assert.ok(stored.every((key) => isSealedSecret(key.privateJwk) && !key.privateJwk.includes('"d"')));
      const other = new SigningKeys(store.signingKeys, clock, randomBytes(32).toString('base64'));
      await assert.rejects(other.start(), SealedUnderAnotherKeyError);
      assert.deepEqual(await store.signingKeys.list(), stored);
    });

    test('two instances starting on plain keys seal each once, under the key they share', async () => {
      const clock = new ManualClock();
      const { privateKey } = generateKeyPairSync('ed25519');
      const privateJwk = privateKey.export({ format: 'jwk' });
      const { d: _d, ...publicJwk } = privateJwk;
      await store.signingKeys.create({
        kid: 'plain-kid',
        privateJwk: JSON.stringify(privateJwk),
        publicJwk: JSON.stringify(publicJwk),
        createdAt: clock.now() + 1_000_000,
        retiredAt: null,
      });
      await Promise.all([0, 1].map(() => new SigningKeys(store.signingKeys, clock, sealingKey).start()));
      const sealed = (await store.signingKeys.list()).find((key) => key.kid === 'plain-kid')!;
      assert.equal(unsealSecret(sealingKey, sealed.privateJwk), JSON.stringify(privateJwk));
      const keys = new SigningKeys(store.signingKeys, clock, sealingKey);
      await keys.start();
      assert.equal(keys.signingKey().kid, 'plain-kid', 'the key that signed before signs on');
    });

    test('an instance learns of a rotation made elsewhere when it meets the new kid', async () => {
      const clock = new ManualClock();
      const server = new SigningKeys(store.signingKeys, clock, sealingKey);
      await server.start();
      const cli = new SigningKeys(store.signingKeys, clock, sealingKey);
      await cli.start();
      const rotated = await cli.rotate();
      clock.advance(10_000);
      assert.ok(await server.verificationKey(rotated));
      assert.equal(await server.verificationKey('forged-kid'), undefined);
    });
  });
}
