/**
 * SPEC 14: every REST route with a write method (from the OpenAPI document the routes generate), every GraphQL
 * mutation (from the full schema) and every CLI command (from the program) records an entry. A route, mutation or
 * command added later fails here until it has a step below, and the step fails until the change records itself
 * (docs/audit.md, "Recording a new mutation").
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { buildSchema } from 'graphql';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { typeDefs } from '../../src/http/graphql/type-defs.js';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { RestClient } from '../helpers/rest-client.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp } from '../helpers/test-app.js';
import { closeMqttClients } from '../helpers/uplinks.js';
import { entriesAddedBy } from './audit-helpers.js';
import {
  cliSteps,
  hookUrl,
  mutationSteps,
  mutationsTestedElsewhere,
  restSteps,
  walkFiles,
  walkRule,
  webhookEnv,
  type WalkContext,
} from './audit-walk-steps.js';

after(cleanupStores);
after(closeMqttClients);

describe('the audit walk: every write records', () => {
  const url = createSqliteUrl();
  const c = { alertIds: [] as number[], ...walkFiles } as WalkContext;
  before(async () => {
    c.server = await startTestApp({ DATABASE_URL: url, ...webhookEnv });
    const rest = (c.rest = new RestClient(c.server));
    c.manager = await signInAs(c.server, 'Manager');
    await rest.post('/things/W-1/installations', { installation_status: 'installed' });
    await rest.post('/groups', { group_id: 'walk' });
    c.hookId = (await rest.post('/webhooks', { url: hookUrl, events: ['alert.opened'] })).body.data.id;
    await rest.post(`/webhooks/${c.hookId}/test`, {});
    c.deliveryId = (await rest.get(`/webhooks/${c.hookId}/deliveries`)).body.data[0].id;
    c.ruleId = (await rest.post('/alert-rules', { ...walkRule, name: 'walk' })).body.data.id;
    c.channelId = (await rest.post('/notification-channels', { name: 'walk', type: 'chat', url: hookUrl })).body.data.id;
    for (let i = 0; i < 4; i += 1) {
      await rest.post(`/things/W-AL${i}/installations`, { installation_status: 'installed' });
      await c.server.app.store.alerts.open({ organizationId: 'acme', tuid: `W-AL${i}`, alertType: 'battery low', openedAt: Date.now() });
    }
    const open = (await rest.get('/alerts?state=open')).body.data.alerts as { id: number }[];
    c.alertIds.push(...open.map((period) => period.id));
    writeFileSync(c.importFile, 'tuid,name\nW-IMPORT-CLI,walked\n');
    writeFileSync(c.credentialFile, 'username,kind\ncli-walk-import,gateway\n');
  });
  after(() => c.server?.stop());

  test('every REST route with a write method records an entry', async () => {
    const steps = restSteps(c);
    const document = (await (await fetch(c.server.url('/openapi.json'))).json()) as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => ['post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(
      writes.filter((route) => !(route in steps)),
      [],
      'write routes without a step here: add one, and make them record',
    );
    for (const route of writes) {
      const added = await entriesAddedBy(c.server, async () => {
        const response = await steps[route]!();
        assert.ok(response.status < 300, `${route}: ${response.status} ${response.text}`);
      });
      assert.ok(
        added.some((entry) => entry.outcome === 'success' && (route.includes('/auth/') || entry.action !== 'auth.login')),
        `${route} recorded nothing`,
      );
    }
  });

  test('every GraphQL mutation records an entry', async () => {
    const steps = mutationSteps(c);
    const mutations = Object.keys(buildSchema(typeDefs).getMutationType()!.getFields()).filter(
      (name) => !(name in mutationsTestedElsewhere),
    );
    assert.deepEqual(
      mutations.filter((name) => !(name in steps)),
      [],
      'mutations without a step here: add one, and make them record',
    );
    for (const name of mutations) {
      const added = await entriesAddedBy(c.server, async () => {
        const response = await steps[name]!();
        assert.equal(response.body.errors, undefined, `${name}: ${JSON.stringify(response.body.errors)}`);
      });
      // The steps sign users in first (auth.login, user.create by the platform): the mutation's own entry is the one after.
      const own = name === 'login' ? added : added.filter((entry) => entry.actor.type !== 'system' && entry.action !== 'auth.login');
      assert.ok(
        own.some((entry) => entry.outcome === 'success'),
        `${name} recorded nothing: ${JSON.stringify(added.map((e) => e.action))}`,
      );
    }
  });

  test('every CLI command that writes records an entry, as the CLI', async () => {
    const steps = cliSteps(c);
    const leaves = (command: Command, prefix: string[]): string[] =>
      command.commands.length === 0 ? [prefix.join(' ')] : command.commands.flatMap((sub) => leaves(sub, [...prefix, sub.name()]));
    const program = buildProgram({ env: {}, stdout: () => undefined, stderr: () => undefined });
    const commands = program.commands.flatMap((command) => leaves(command, [command.name()]));
    assert.deepEqual(
      commands.filter((name) => !(name in steps)),
      [],
      'commands without a step here: add one (or say why they write nothing)',
    );
    for (const name of commands) {
      const entry = steps[name]!;
      if ('readsOnly' in entry) continue;
      const { step, exitCode } =
        'args' in entry
          ? { step: entry.args(), exitCode: entry.exitCode }
          : { step: typeof entry === 'function' ? entry() : entry, exitCode: 0 };
      const organization = name === 'org create' ? 'walk' : 'acme';
      const added = await entriesAddedBy(
        c.server,
        async () => {
          const run = await runThingdesk(step, { DATABASE_URL: url, ...webhookEnv });
          assert.equal(run.code, exitCode, `${name}: ${run.stderr}`);
        },
        organization,
      );
      assert.ok(
        added.some((entry) => entry.via === 'cli' && entry.actor.type === 'cli'),
        `${name} recorded nothing as the CLI`,
      );
    }
  });
});
