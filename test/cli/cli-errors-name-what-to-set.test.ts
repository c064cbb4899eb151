/** Every CLI failure names the variable, flag or argument to change; `--version`; the package's `bin` as npx runs it. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { runThingdesk } from '../helpers/run-cli.js';

after(cleanupStores);

const root = fileURLToPath(new URL('../../', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('package.json', `file://${root}`), 'utf8')) as { version: string };
const run = promisify(execFile);

// Every command that reads the store, with the options it requires. The walk below fails when a command is added
// to the CLI without an entry here.
const storeCommands: string[][] = [
  ['migrate'],
  ['status'],
  ['org', 'create', '--name', 'Acme'],
  ['user', 'create', '--org', 'acme', '--email', 'a@acme.test'],
  ['client', 'create', '--org', 'acme'],
  ['client', 'revoke', 'client-x'],
  ['mqtt-credential', 'create', '--org', 'acme'],
  ['thing', 'release', '--org', 'acme', '--tuid', 'T1'],
  ['keys', 'rotate'],
  ['keys', 'reset'],
  ['webhook', 'list', '--org', 'acme'],
  ['rule', 'list', '--org', 'acme'],
  ['channel', 'list', '--org', 'acme'],
  ['things', 'export', '--org', 'acme'],
  ['audit', 'verify'],
];

// The commands that copy a SQLite store as it is (never opened through the store layer), with their arguments.
const copyCommands: Record<string, string[]> = { backup: ['backup', '/tmp/never-written.db'], restore: ['restore', '/tmp/never-read.db'] };

describe('thingdesk --version and the bin entry', () => {
  test('--version and -V print the package version and exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await runThingdesk([flag], {});
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${version}\n`);
    }
  });

  test("package.json's bin runs the CLI, directly and through npm exec from the project directory", async () => {
    const { bin } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { bin: Record<string, string> };
    const direct = await run(process.execPath, [`${root}${bin['thingdesk']}`, '--version'], { cwd: root });
    assert.equal(direct.stdout, `${version}\n`);
    // `npm exec thingdesk` (what `npx thingdesk` runs) finds the project's own bin; --offline: nothing is downloaded.
    const npm = await run('npm', ['exec', '--offline', '--yes', 'thingdesk', '--', '--version'], { cwd: root });
    assert.equal(npm.stdout.trim(), version);
  });
});

describe('every CLI error names what to set', () => {
  test('each store command on an unreachable database names DATABASE_URL, without its password', async () => {
    const env = { DATABASE_URL: 'postgres://someone:hidden-secret@127.0.0.1:1/none' };
    for (const args of storeCommands) {
      const result = await runThingdesk(args, env);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(
        result.stderr,
        /^thingdesk: configuration error: DATABASE_URL: cannot open postgres:\/\/someone:\*+@127\.0\.0\.1:1\/none: /,
      );
      assert.ok(!result.stderr.includes('hidden-secret'));
    }
  });

  test("backup and restore on a PostgreSQL store refuse, naming DATABASE_URL and PostgreSQL's own tools", async () => {
    const env = { DATABASE_URL: 'postgres://someone:hidden-secret@127.0.0.1:1/none' };
    for (const args of Object.values(copyCommands)) {
      const result = await runThingdesk(args, env);
      assert.equal(result.code, 1, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /DATABASE_URL/);
      assert.match(result.stderr, /pg_dump/);
      assert.ok(!result.stderr.includes('hidden-secret'));
    }
  });

  test('the walk covers every command of the CLI', async () => {
    const help = await runThingdesk(['--help'], {});
    const listed = [...help.stdout.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
    const covered = new Set([...storeCommands.map((args) => args[0]!), 'serve', 'simulate', ...Object.keys(copyCommands)]);
    assert.deepEqual(
      listed.filter((name) => !covered.has(name)),
      [],
    );
  });

  describe('with a store', () => {
    let env: Record<string, string>;
    before(async () => {
      env = { DATABASE_URL: createSqliteUrl() };
      const org = await runThingdesk(['org', 'create', '--name', 'Acme'], env);
      assert.equal(org.code, 0, org.stderr);
    });

    const cases: { args: string[]; names: RegExp }[] = [
      { args: ['org', 'create', '--name', ' '], names: /\n {2}--name: name must be/ },
      { args: ['org', 'create', '--name', 'Other', '--id', 'Not Valid'], names: /\n {2}--id: id must be/ },
      { args: ['org', 'create', '--name', 'acme'], names: /already exists\. \(check --name and --id\)/ },
      { args: ['user', 'create', '--org', 'acme', '--email', 'nope'], names: /\n {2}--email: email must be/ },
      {
        args: ['user', 'create', '--org', 'acme', '--email', 'a@acme.test', '--password', 'x'],
        names: /\n {2}--password: password must be/,
      },
      { args: ['user', 'create', '--org', 'acme', '--email', 'a@acme.test', '--role', 'Boss'], names: /\n {2}--role: role must be/ },
      { args: ['user', 'create', '--org', 'ghost', '--email', 'a@acme.test'], names: /No organization with id ghost.*\(check --org\)/ },
      { args: ['client', 'create', '--org', 'acme', '--client-id', 'has space'], names: /\n {2}--client-id: clientId must be/ },
      { args: ['client', 'create', '--org', 'ghost'], names: /\(check --org\)/ },
      { args: ['client', 'revoke', 'client-unknown'], names: /\(check the CLIENT_ID argument\)/ },
      { args: ['mqtt-credential', 'create', '--org', 'acme', '--kind', 'robot'], names: /\n {2}--kind: kind must be/ },
      { args: ['mqtt-credential', 'create', '--org', 'acme', '--username', 'gw/+'], names: /\n {2}--username: username must be/ },
      { args: ['mqtt-credential', 'create', '--org', 'ghost'], names: /\(check --org\)/ },
      { args: ['thing', 'release', '--org', 'acme', '--tuid', 'T-unknown'], names: /\(check --org and --tuid\)/ },
      { args: ['user', 'create', '--email', 'a@acme.test'], names: /required option '--org <organizationId>' not specified/ },
    ];
    for (const { args, names } of cases) {
      test(`${args.join(' ')} fails naming what to change`, async () => {
        const result = await runThingdesk(args, env);
        assert.notEqual(result.code, 0, result.stdout);
        assert.match(result.stderr, names);
      });
    }

    test('a valid command still succeeds (the renaming touches failures only)', async () => {
      const result = await runThingdesk(['user', 'create', '--org', 'acme', '--email', 'ok@acme.test', '--json'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.equal((JSON.parse(result.stdout) as { email: string }).email, 'ok@acme.test');
    });

    test('a bad configuration variable is named', async () => {
      const result = await runThingdesk(['migrate'], { ...env, DATABASE_URL: 'mysql://x' });
      assert.equal(result.code, 2);
      assert.match(result.stderr, /^thingdesk: configuration error: DATABASE_URL: /);
    });
  });
});
