/**
 * Fault: SQLite's write lock held past busy_timeout (5 s) by another connection, as a long import or a stuck
 * writer would. A request that must write then fails as a temporary store failure (503, retryable), not as an
 * internal error (500), and the same request succeeds once the lock is free. Found by the hostile soak: one
 * sign-in of a login flood answered INTERNAL_SERVER_ERROR with "database is locked" in the log.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SqliteBinding } from '../../src/store/sqlite-binding.js';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { errorCodes, GraphqlClient } from '../helpers/graphql-client.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp } from '../helpers/test-app.js';

after(cleanupStores);

describe('SQLite write lock held past busy_timeout', () => {
  test(
    'a write answers 503 SERVICE_UNAVAILABLE (GraphQL: retryable) while the lock is held, then succeeds',
    { timeout: 60_000 },
    async () => {
      const url = createSqliteUrl();
      const server = await startTestApp({ DATABASE_URL: url });
      const holder = new SqliteBinding(url.slice('file:'.length));
      try {
        const graphql = new GraphqlClient(server);
        await graphql.login();
        const rest = new RestClient(server);
        assert.equal((await rest.get('/groups')).status, 200, 'the REST token is taken before the lock');
        holder.pragma('busy_timeout = 10000');
        holder.exec('begin immediate');
        const created = await rest.post('/groups', { group_id: 'while-locked' });
        assert.equal(created.status, 503, created.text);
        assert.equal(created.body.code, 'SERVICE_UNAVAILABLE');
        const failedLogin = await new GraphqlClient(server).login({ password: 'not-the-password' });
        assert.deepEqual(errorCodes(failedLogin), ['INTERNAL_SERVER_ERROR'], JSON.stringify(failedLogin.body));
        assert.equal(failedLogin.body.errors?.[0]?.extensions?.retryable, true, JSON.stringify(failedLogin.body));
        holder.exec('rollback');
        assert.equal((await rest.post('/groups', { group_id: 'after-lock' })).status, 200);
        const groups = await rest.get('/groups');
        assert.ok(!JSON.stringify(groups.body).includes('while-locked'), 'the refused write left nothing');
        assert.ok(JSON.stringify(groups.body).includes('after-lock'));
      } finally {
        if (holder.inTransaction) holder.exec('rollback');
        holder.close();
        await server.stop();
      }
    },
  );
});
