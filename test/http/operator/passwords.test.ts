/** SPEC section 16: a user changes their own password (other sessions end); a Manager resets a user's (all sessions end). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const change = 'mutation ($c: String!, $n: String!) { changePassword(current: $c, new: $n) }';
const reset = 'mutation ($id: ID!) { resetUserPassword(userId: $id) { userId password } }';
const me = '{ me { email } }';

for (const target of storeTargets) {
  describe(`password change and reset on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
    });
    after(() => server?.stop());

    const signIn = async (email: string, password: string) => {
      const client = new GraphqlClient(server);
      const response = await client.login({ email, password });
      return { client, ok: response.body.data?.login != null };
    };

    test('changePassword: every role; wrong current or weak new refused; the other sessions end, this one goes on', async () => {
      const viewer = await signInAs(server, 'Viewer');
      const other = await signIn(viewer.email, viewer.password);
      assert.ok(other.ok);
      assertBadInput(await viewer.client.request(change, { c: 'not-my-password', n: 'a-new-password-1' }), ['current']);
      dataOf(await viewer.client.request(me));
      assertBadInput(await viewer.client.request(change, { c: viewer.password, n: 'short' }), ['new']);
      assertBadInput(await viewer.client.request(change, { c: viewer.password, n: viewer.password }), ['new']);
      dataOf(await other.client.request(me));
      assert.equal(dataOf(await viewer.client.request(change, { c: viewer.password, n: 'a-new-password-1' })).changePassword, true);
      assertGraphqlError(await other.client.request(me), 'UNAUTHENTICATED');
      assert.equal(dataOf(await viewer.client.request(me)).me.email, viewer.email, 'the session that changed it goes on');
      assert.equal((await signIn(viewer.email, viewer.password)).ok, false, 'the old password no longer signs in');
      assert.equal((await signIn(viewer.email, 'a-new-password-1')).ok, true);
    });

    test('resetUserPassword: Managers only; a one-time password; the old password and every session end at once', async () => {
      const manager = await signInAs(server, 'Manager');
      const installer = await signInAs(server, 'Installer');
      assertGraphqlError(
        await installer.client.request(reset, { id: manager.userId }),
        'BAD_USER_INPUT',
        /Cannot query field "resetUserPassword"/,
      );
      assertGraphqlError(await manager.client.request(reset, { id: manager.userId }), 'CONFLICT');
      assertGraphqlError(await manager.client.request(reset, { id: 'no-such-user' }), 'NOT_FOUND');
      dataOf(await installer.client.request(me));
      const answer = dataOf(await manager.client.request(reset, { id: installer.userId })).resetUserPassword;
      assert.equal(answer.userId, installer.userId);
      assert.ok(answer.password.length >= 16);
      assertGraphqlError(await installer.client.request(me), 'UNAUTHENTICATED');
      assert.equal((await signIn(installer.email, installer.password)).ok, false);
      assert.equal((await signIn(installer.email, answer.password)).ok, true);
      const again = dataOf(await manager.client.request(reset, { id: installer.userId })).resetUserPassword;
      assert.notEqual(again.password, answer.password, 'a new one each time');
    });
  });
}
