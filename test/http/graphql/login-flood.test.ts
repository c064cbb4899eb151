/**
 * Anonymous sign-in floods (issue 32, finding 9): failed sign-ins with a fresh e-mail each time are refused per
 * address before any argon2 verify runs; argon2 work past its cap is refused as a retryable 503 instead of queuing
 * without end; login_attempts rows expire and an e-mail no account can have leaves none.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { nodeArgon2, type PasswordHasher } from '../../../src/domain/identity/password-hashing.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlResponse } from '../../helpers/graphql-client.js';
import { eventually } from '../../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const loginMutation = 'mutation Login($input: LoginInput!) { login(loginInput: $input) { accessToken organizationId } }';

/** One sign-in as sent through a trusted proxy that names the client `address` (TRUST_PROXY=loopback). */
async function login(server: TestApp, address: string, input: { email?: string; password?: string } = {}): Promise<GraphqlResponse> {
  const response = await fetch(server.url(server.config.graphqlPath), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'x-forwarded-for': address },
    body: JSON.stringify({
      query: loginMutation,
      variables: {
        input: {
          email: input.email ?? testBootstrap.BOOTSTRAP_EMAIL,
          password: input.password ?? testBootstrap.BOOTSTRAP_PASSWORD,
          organizationName: testBootstrap.BOOTSTRAP_ORG,
        },
      },
    }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as GraphqlResponse['body'] };
}

const codeOf = (response: GraphqlResponse) => String(response.body.errors?.[0]?.extensions?.code ?? 'ok');

/** argon2 as the platform runs it, counting the verifies that reach it. */
function countingArgon2(): PasswordHasher & { verifies: number } {
  const counting = {
    verifies: 0,
    hash: (password: string) => nodeArgon2.hash(password),
    verify: (storedHash: string, password: string) => {
      counting.verifies += 1;
      return nodeArgon2.verify(storedHash, password);
    },
  };
  return counting;
}

for (const target of storeTargets) {
  describe(`sign-in floods on ${target.name} (issue 32, finding 9)`, { skip: target.skip }, () => {
    test('80 failed sign-ins with fresh e-mails from one address: at most 30 reach argon2, the rest are RATE_LIMITED; another address signs in', async () => {
      const argon2 = countingArgon2();
      const server = await startTestApp(
        { DATABASE_URL: await target.createUrl(), TRUST_PROXY: 'loopback', PASSWORD_HASH_QUEUE: '100' },
        { argon2 },
      );
      try {
        const codes: string[] = [];
        for (let batch = 0; batch < 16; batch += 1) {
          const answers = await Promise.all(
            Array.from({ length: 5 }, (_, i) =>
              login(server, '203.0.113.7', { email: `flood-${batch}-${i}@example.test`, password: 'guess' }),
            ),
          );
          codes.push(...answers.map(codeOf));
        }
        const limited = codes.filter((code) => code === 'RATE_LIMITED').length;
        const checked = codes.filter((code) => code === 'UNAUTHENTICATED').length;
        assert.equal(limited + checked, 80, codes.join(','));
        assert.ok(checked <= 30, `${checked} fresh e-mails were checked`);
        assert.ok(argon2.verifies <= 30, `${argon2.verifies} argon2 verifies ran for one address`);
        const refused = await login(server, '203.0.113.7', { email: 'one-more@example.test', password: 'guess' });
        assert.equal(codeOf(refused), 'RATE_LIMITED');
        assert.ok(Number(refused.body.errors?.[0]?.extensions?.retryAfter) >= 1);
        // The flood's address is refused, even with the right password; the Manager from elsewhere is not.
        assert.equal(codeOf(await login(server, '203.0.113.7')), 'RATE_LIMITED');
        const manager = await login(server, '198.51.100.9');
        assert.equal(codeOf(manager), 'ok', JSON.stringify(manager.body));
        assert.ok(manager.body.data.login.accessToken);
      } finally {
        await server.stop();
      }
    });

    test('login_attempts rows expire; a 600-character e-mail is refused and leaves no row', async () => {
      const clock = new ManualClock(Date.now());
      const server = await startTestApp({ DATABASE_URL: await target.createUrl() }, { clock });
      try {
        const attempts = server.app.store.loginAttempts;
        const before = await attempts.count();
        assert.equal(codeOf(await login(server, '127.0.0.1', { email: 'first@example.test', password: 'guess' })), 'UNAUTHENTICATED');
        assert.equal(await attempts.count(), before + 1);
        const long = await login(server, '127.0.0.1', { email: `${'a'.repeat(588)}@example.test`, password: 'guess' });
        assert.equal(codeOf(long), 'BAD_USER_INPUT');
        assert.deepEqual(
          long.body.errors?.[0]?.extensions?.errors.map((e: { field: string }) => e.field),
          ['email'],
        );
        assert.equal(await attempts.count(), before + 1, 'the long e-mail left a row');
        // Past the window (15 minutes) the first row counts for nothing: the next sign-in's write removes it.
        clock.advance(16 * 60_000);
        assert.equal(codeOf(await login(server, '127.0.0.1', { email: 'second@example.test', password: 'guess' })), 'UNAUTHENTICATED');
        assert.equal(await attempts.count(), 1, 'expired rows were kept');
      } finally {
        await server.stop();
      }
    });
  });
}

describe('the cap on concurrent argon2 work (issue 32, finding 9)', () => {
  test('with one turn and one place in the queue, two more sign-ins at once are refused as retryable, then all is well', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const argon2 = {
      started: 0,
      hash: (password: string) => nodeArgon2.hash(password),
      verify: async (storedHash: string, password: string) => {
        argon2.started += 1;
        await held;
        return nodeArgon2.verify(storedHash, password);
      },
    };
    const server = await startTestApp({ PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '1' }, { argon2 });
    try {
      const settled: GraphqlResponse[] = [];
      const pending = Array.from({ length: 4 }, (_, i) =>
        login(server, '127.0.0.1', { email: `burst-${i}@example.test`, password: 'guess' }).then((response) => {
          settled.push(response);
          return response;
        }),
      );
      // One verify runs (held), one waits for its turn, the other two are refused at once.
      await eventually(() => (settled.length === 2 ? true : undefined), 10_000, 'two refusals');
      assert.equal(argon2.started, 1);
      for (const refused of settled) {
        assert.equal(codeOf(refused), 'INTERNAL_SERVER_ERROR', JSON.stringify(refused.body));
        assert.equal(refused.body.errors?.[0]?.extensions?.retryable, true);
        assert.equal(refused.body.errors?.[0]?.extensions?.retryAfter, 1);
        assert.equal(refused.headers.get('retry-after'), '1');
      }
      release();
      const all = await Promise.all(pending);
      assert.deepEqual(all.map(codeOf).sort(), ['INTERNAL_SERVER_ERROR', 'INTERNAL_SERVER_ERROR', 'UNAUTHENTICATED', 'UNAUTHENTICATED']);
      assert.equal(argon2.started, 2);
      // Refusals for lack of a turn are not failures of the address: the right password still signs in.
      assert.equal(codeOf(await login(server, '127.0.0.1')), 'ok');
      const text = await server.app.metrics.registry.getSingleMetricAsString('thingdesk_argon2_operations_total');
      assert.match(text, /outcome="refused"\} 2$/m);
    } finally {
      release();
      await server.stop();
    }
  });
});
