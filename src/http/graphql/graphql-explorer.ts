import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const require = createRequire(import.meta.url);
/** A file of an installed package; through its package.json, since `exports` hides the UMD files. */
const packageFile = (name: string, file: string) => join(dirname(require.resolve(`${name}/package.json`)), file);

/**
 * GraphiQL's prebuilt browser files, served from node_modules (graphiql 3 is the last line that ships a UMD build;
 * React 18 the last with UMD files). Nothing is fetched from a CDN, at build time or at run time.
 */
const vendorAssets: Record<string, { file: string; type: string }> = {
  'react.js': { file: packageFile('react', 'umd/react.production.min.js'), type: 'text/javascript; charset=utf-8' },
  'react-dom.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), type: 'text/javascript; charset=utf-8' },
  'graphiql.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: 'text/javascript; charset=utf-8' },
  'graphiql.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css; charset=utf-8' },
};

/**
 * The page is same-origin only: scripts, styles and requests go to this server. GraphiQL sets inline styles
 * (React style attributes) and its CSS carries fonts and icons as data: URLs.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the explorer's files live, below GRAPHQL_PATH. */
export function explorerAssetPath(graphqlPath: string): string {
  return `${graphqlPath}/explorer`;
}

/**
 * A browser opening GRAPHQL_PATH (GET, `Accept: text/html`, no `query` parameter) gets the explorer; GraphQL
 * clients send `application/json` or `application/graphql-response+json` and never ask for HTML first.
 */
export function wantsExplorer(request: FastifyRequest): boolean {
  if (request.method !== 'GET' || (request.query as Record<string, unknown> | undefined)?.query !== undefined) return false;
  const accept = request.headers.accept ?? '';
  return /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}

/** Answers the explorer page: GraphiQL with a sign-in form; the access token lives only in the page's memory. */
export function sendExplorerPage(reply: FastifyReply, graphqlPath: string): FastifyReply {
  const assets = explorerAssetPath(graphqlPath);
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>thingdesk GraphQL explorer</title>
<link rel="stylesheet" href="${assets}/graphiql.css">
<link rel="stylesheet" href="${assets}/explorer.css">
</head>
<body data-endpoint="${graphqlPath}">
<form id="sign-in">
  <strong>thingdesk GraphQL</strong>
  <input name="email" type="email" placeholder="E-mail" autocomplete="username" required>
  <input name="organizationName" placeholder="Organization" required>
  <input name="password" type="password" placeholder="Password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
  <span id="status" role="status"></span>
  <button id="sign-out" type="button" hidden>Sign out</button>
</form>
<div id="graphiql"></div>
<script src="${assets}/react.js"></script>
<script src="${assets}/react-dom.js"></script>
<script src="${assets}/graphiql.js"></script>
<script src="${assets}/explorer.js"></script>
</body>
</html>
`;
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', contentSecurityPolicy)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(page);
}

/**
 * The explorer's own script: signs in through the `login` mutation, keeps the access token in memory (never in
 * storage, so a reload signs out), sends it as `Authorization: Bearer` on every request and shows GraphiQL, which
 * then introspects the caller's role schema. On UNAUTHENTICATED (the token expired) it asks to sign in again.
 */
const explorerScript = `'use strict';
(function () {
  var endpoint = document.body.getAttribute('data-endpoint');
  var form = document.getElementById('sign-in');
  var status = document.getElementById('status');
  var signOut = document.getElementById('sign-out');
  var container = document.getElementById('graphiql');
  var root = ReactDOM.createRoot(container);
  var token = null;

  function post(body) {
    var headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    return fetch(endpoint, { method: 'POST', headers: headers, body: JSON.stringify(body) }).then(function (response) {
      return response.json();
    }).then(function (result) {
      var errors = result.errors || [];
      if (token && errors.some(function (e) { return e.extensions && e.extensions.code === 'UNAUTHENTICATED'; })) {
        status.textContent = 'Your session has ended: sign in again.';
        show(null);
      }
      return result;
    });
  }

  function show(newToken) {
    token = newToken;
    form.classList.toggle('signed-in', Boolean(token));
    signOut.hidden = !token;
    if (!token) {
      root.render(null);
      return;
    }
    root.render(React.createElement(GraphiQL, { key: token, fetcher: function (params) { return post(params); } }));
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var data = new FormData(form);
    var input = { email: data.get('email'), organizationName: data.get('organizationName'), password: data.get('password') };
    status.textContent = 'Signing in...';
    token = null;
    post({ query: 'mutation Login($input: LoginInput!) { login(loginInput: $input) { accessToken expiresIn } }', variables: { input: input } })
      .then(function (result) {
        if (!result.data || !result.data.login) {
          status.textContent = (result.errors && result.errors[0] && result.errors[0].message) || 'Sign-in failed.';
          return;
        }
        form.elements.password.value = '';
        status.textContent = 'Signed in as ' + input.email + ' (the access token lasts ' + result.data.login.expiresIn + ' s).';
        show(result.data.login.accessToken);
      })
      .catch(function () { status.textContent = 'The server could not be reached.'; });
  });

  signOut.addEventListener('click', function () {
    post({ query: 'mutation { logout { success } }' }).finally(function () {
      status.textContent = 'Signed out.';
      show(null);
    });
  });
})();
`;

const explorerStyle = `html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
#sign-in { display: flex; gap: 0.5rem; align-items: center; padding: 0.5rem; border-bottom: 1px solid #ccc; flex-wrap: wrap; }
#sign-in.signed-in input, #sign-in.signed-in button[type=submit] { display: none; }
#graphiql { flex: 1; min-height: 0; }
`;

const ownAssets: Record<string, { text: string; type: string }> = {
  'explorer.js': { text: explorerScript, type: 'text/javascript; charset=utf-8' },
  'explorer.css': { text: explorerStyle, type: 'text/css; charset=utf-8' },
};

/** Serves the explorer's files below GRAPHQL_PATH/explorer/: the vendor files from node_modules, and its own. */
export function registerExplorerAssets(app: FastifyInstance, graphqlPath: string): void {
  app.get<{ Params: { asset: string } }>(`${explorerAssetPath(graphqlPath)}/:asset`, { schema: { hide: true } }, async (request, reply) => {
    const { asset } = request.params;
    reply.header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600');
    const own = Object.hasOwn(ownAssets, asset) ? ownAssets[asset] : undefined;
    if (own) return reply.type(own.type).send(own.text);
    const vendor = Object.hasOwn(vendorAssets, asset) ? vendorAssets[asset] : undefined;
    if (vendor) return reply.type(vendor.type).send(createReadStream(vendor.file));
    return reply.callNotFound();
  });
}
