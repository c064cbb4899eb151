/**
 * The GraphQL explorer (issue 19): GraphiQL at GRAPHQL_PATH for a browser, every file served by the platform itself
 * (no CDN), and its script signing in through `login` and sending the token. No browser runs here: the page's
 * script runs in a VM with a small stand-in for the DOM and the real `fetch` against the real server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { cleanupStores } from '../../helpers/databases.js';
import { signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GraphQL explorer', () => {
  let server: TestApp;
  let installer: SignedInUser;
  before(async () => {
    server = await startTestApp();
    installer = await signInAs(server, 'Installer');
  });
  after(() => server?.stop());

  const page = () => fetch(server.url(server.config.graphqlPath), { headers: { accept: browserAccept } });

  test('a browser opening GRAPHQL_PATH gets the explorer page, same-origin only', async () => {
    const response = await page();
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'(;|$)/);
    const html = await response.text();
    assert.match(html, /<title>thingdesk GraphQL explorer<\/title>/);
    assert.doesNotMatch(html, /https?:\/\//, 'nothing from another origin');
  });

  test('every script and stylesheet of the page is served by the platform, with its type', async () => {
    const html = await (await page()).text();
    const files = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    assert.equal(files.length, 6, files.join(', '));
    for (const file of files) {
      assert.ok(file.startsWith(`${server.config.graphqlPath}/explorer/`), file);
      const response = await fetch(server.url(file));
      assert.equal(response.status, 200, file);
      assert.match(response.headers.get('content-type') ?? '', file.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, file);
      assert.ok((await response.text()).length > 100, file);
    }
    assert.equal((await fetch(server.url(`${server.config.graphqlPath}/explorer/package.json`))).status, 404);
    assert.equal((await fetch(server.url(`${server.config.graphqlPath}/explorer/..%2F..%2Fpackage.json`))).status, 404);
  });

  test('GraphQL clients are answered as before: GET with a query runs it, no HTML', async () => {
    const url = server.url(`${server.config.graphqlPath}?query=${encodeURIComponent('{ __typename }')}`);
    const response = await fetch(url, {
      headers: { accept: 'application/graphql-response+json', authorization: `Bearer ${installer.client.accessToken}` },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { data: { __typename: 'Query' } });
    const viaBrowser = await fetch(url, { headers: { accept: browserAccept, authorization: `Bearer ${installer.client.accessToken}` } });
    assert.doesNotMatch(viaBrowser.headers.get('content-type') ?? '', /text\/html/, 'a query parameter is a GraphQL request');
  });

  test("the page signs in through login, sends the token, and GraphiQL introspects the caller's schema", async () => {
    const script = await (await fetch(server.url(`${server.config.graphqlPath}/explorer/explorer.js`))).text();
    const browser = fakeBrowser(server);
    runInNewContext(script, browser.globals);
    browser.fields.email = installer.email;
    browser.fields.organizationName = 'Acme';
    browser.fields.password = 'wrong password';
    await browser.submit();
    assert.match(browser.status.textContent, /./, 'a failed sign-in says why');
    assert.equal(browser.rendered.length, 0, 'no explorer without a token');

    browser.fields.password = installer.password;
    await browser.submit();
    assert.match(browser.status.textContent, /^Signed in as /);
    assert.equal(browser.fields.password, '', 'the password field is cleared');
    const graphiql = browser.rendered.at(-1)!;
    const schemaResult = (await graphiql.fetcher({ query: getIntrospectionQuery({ inputValueDeprecation: true }) })) as {
      data: IntrospectionQuery;
    };
    const mutations = Object.keys(buildClientSchema(schemaResult.data).getMutationType()!.getFields());
    assert.ok(mutations.includes('setInstallationStatus') && !mutations.includes('createUser'), mutations.join(', '));
    assert.ok(browser.sentHeaders.at(-1)?.authorization?.startsWith('Bearer '), 'the token is sent');
  });
});

interface FakeBrowser {
  globals: Record<string, unknown>;
  fields: Record<string, string>;
  status: { textContent: string };
  rendered: { fetcher: (params: unknown) => Promise<unknown> }[];
  sentHeaders: Record<string, string>[];
  submit(): Promise<void>;
}

/** Just enough of a browser for the explorer's script: its form, status line, React's render and fetch. */
function fakeBrowser(server: TestApp): FakeBrowser {
  const fields: Record<string, string> = {};
  const listeners: Record<string, (event: unknown) => void> = {};
  const status = { textContent: '' };
  const rendered: FakeBrowser['rendered'] = [];
  const sentHeaders: Record<string, string>[] = [];
  let pending: Promise<unknown> = Promise.resolve();
  const element = (id: string) => ({
    id,
    hidden: false,
    classList: { toggle() {} },
    elements: {
      password: {
        set value(value: string) {
          fields.password = value;
        },
      },
    },
    addEventListener: (type: string, listener: (event: unknown) => void) => void (listeners[`${id}:${type}`] = listener),
  });
  const elements: Record<string, unknown> = {
    'sign-in': element('sign-in'),
    'sign-out': element('sign-out'),
    graphiql: element('graphiql'),
    status,
  };
  const GraphiQL = () => null;
  const globals = {
    document: { body: { getAttribute: () => server.config.graphqlPath }, getElementById: (id: string) => elements[id] },
    FormData: class {
      get(name: string) {
        return fields[name];
      }
    },
    fetch: (url: string, init: { headers: Record<string, string> }) => {
      sentHeaders.push(init.headers);
      const answer = fetch(server.url(url), init);
      pending = answer;
      return answer;
    },
    React: { createElement: (type: unknown, props: FakeBrowser['rendered'][number]) => ({ type, props }) },
    ReactDOM: {
      createRoot: () => ({
        render: (node: { type: unknown; props: FakeBrowser['rendered'][number] } | null) => {
          if (node?.type === GraphiQL) rendered.push(node.props);
        },
      }),
    },
    GraphiQL,
  };
  return {
    globals,
    fields,
    status,
    rendered,
    sentHeaders,
    async submit() {
      listeners['sign-in:submit']!({ preventDefault() {} });
      await pending;
      // Let the response's json() and the handlers after it run.
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    },
  };
}
