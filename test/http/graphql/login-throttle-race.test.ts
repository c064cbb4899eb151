import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { errorCodes, GraphqlClient } from '../../helpers/graphql-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`sign-in throttle under concurrency on ${target.name} (issue 12 item 8)`, { skip: target.skip }, () => {
    let server: TestApp;
    before(async () => {
      server = await startTestApp({
        DATABASE_URL: await target.createUrl(),
        RATE_LIMIT_PER_ADDRESS: '100000',
        // The account's throttle is under test here, not the address's (login-flood.test.ts).
        LOGIN_FAILURES_PER_ADDRESS: '1000',
      });
    });
    after(() => server?.stop());

    test('40 wrong passwords at once: at most 5 get a password check, the rest are RATE_LIMITED', async () => {
      const attempts = await Promise.all(
        Array.from({ length: 40 }, () =>
          new GraphqlClient(server).login({ password: 'wrong-password' }).then((response) => errorCodes(response)[0]),
        ),
      );
      const checked = attempts.filter((code) => code === 'UNAUTHENTICATED').length;
      const limited = attempts.filter((code) => code === 'RATE_LIMITED').length;
      assert.equal(checked + limited, 40, JSON.stringify(attempts));
      assert.ok(checked <= 5, `${checked} guesses were checked`);
      assert.ok(checked >= 1);
      // The account is blocked now, for the right password too.
      assert.deepEqual(errorCodes(await new GraphqlClient(server).login()), ['RATE_LIMITED']);
    });

    test('another account is not affected: its first guesses are checked', async () => {
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          new GraphqlClient(server).login({ email: 'nobody-else@acme.test', password: 'x' }).then((r) => errorCodes(r)[0]),
        ),
      );
      assert.deepEqual(results, ['UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED']);
    });
  });
}
