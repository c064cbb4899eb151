// Flat config: typescript-eslint's recommended rules on top of ESLint's, for sources, tests and scripts alike, and
// the direction of the arrows between the layers of src (ARCHITECTURE.md), which fails lint when one runs backwards.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const layerRule = (...patterns) => ['error', { patterns }];
// Import paths inside src are relative: `../store/x.js`, `../../mqtt/y.js`. `allowed` is a regex of the files under
// `folder` that stay importable.
const into = (folder, allowed) => `^(\\.\\./)+${folder}/${allowed ? `(?!${allowed})` : ''}`;
const edges = ['mqtt', 'http', 'ingest', 'integration', 'app', 'cli'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript scripts run on Node; TypeScript files get undefined names from the compiler instead.
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      // One SQLite binding per Node.js line, chosen in one place (src/store/sqlite-binding.ts); types may come from
      // better-sqlite3's own declarations.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value=/^better-sqlite3/][importKind!='type']",
          message: 'Load SQLite through SqliteBinding (src/store/sqlite-binding.ts), which picks the binding for this Node.js.',
        },
      ],
    },
  },
  { files: ['src/store/sqlite-binding.ts'], rules: { 'no-restricted-syntax': 'off' } },
  {
    // Transports reach the store only through the domain. store-unavailable.ts is the exception by design: a pure
    // table of what the drivers throw for an outage (no store access), which toAppError maps to 503.
    files: ['src/http/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': layerRule({
        regex: into('store', 'store-unavailable\\.js$'),
        message: 'src/http calls domain functions; it does not import the store.',
      }),
    },
  },
  {
    // The domain knows no transport, and sees the store only through the Store type (records live in domain types).
    files: ['src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': layerRule(
        ...edges.map((folder) => ({ regex: into(folder), message: 'The domain imports no transport or edge; declare a port instead.' })),
        { regex: into('store', 'store\\.js$'), message: 'The domain sees the store only through the Store type (src/store/store.js).' },
        { regex: into('store') + 'store\\.js$', allowTypeImports: true, message: 'The domain imports the Store type only.' },
      ),
    },
  },
  {
    // The store depends on the domain's records and pure rules (no I/O), never on its services or on an edge.
    files: ['src/store/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': layerRule(
        ...edges.map((folder) => ({ regex: into(folder), message: 'The store imports no transport or edge.' })),
        {
          regex: into('domain', '.*-types\\.js$|errors\\.js$|things/summary-rules\\.js$|messages/message-json\\.js$|groups/unassigned-group\\.js$|series/rollup-rules\\.js$|series/rollup-merge\\.js$|audit/audit-chain\\.js$|things/thing-labels\\.js$|webhooks/outbox-rules\\.js$|alerts/local-time\\.js$|channels/channel-messages\\.js$|channels/notify-rules\\.js$|rules/rule-preview-bounds\\.js$'),
          allowTypeImports: true,
          message: 'The store imports domain types and pure rule functions only.',
        },
      ),
    },
  },
);
