#!/usr/bin/env node
// What `npm start` builds before serving: the server (tsc, incremental) when its sources changed since the last
// build, the studio (Vite) when one of the files it was built from changed, nothing otherwise. A restart of an
// unchanged checkout waits for no compiler. The tools' output is shown only when they fail, or at LOG_LEVEL=debug
// (`npm run build` builds everything and shows it all, then records what it built with `--record`).
// `--record`: write down the current sources as built, build nothing. `--check`: build nothing, exit 3 when a build
// would run (tests that need an unchanged checkout skip on it).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stampPath = join(root, 'dist', '.build-stamp.json');
// Written by the studio's Vite build (studio/vite.config.ts): every file of the project it read.
const studioInputsPath = join(root, 'dist', '.studio-inputs.json');
const shared = ['package-lock.json', 'tsconfig.json'];
const verbose = process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';

function filesUnder(folder) {
  const entries = readdirSync(join(root, folder), { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** A digest of the files' names and contents; a missing file counts as changed. */
function fingerprint(files) {
  const hash = createHash('sha256');
  for (const file of [...new Set(files)].sort()) {
    hash.update(`${file}\0`);
    hash.update(existsSync(join(root, file)) ? readFileSync(join(root, file)) : 'missing');
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function run(label, command, args) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio: verbose ? 'inherit' : 'pipe' });
  if (result.status === 0) return;
  if (!verbose) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
  process.stderr.write(`thingdesk: the ${label} build failed (${command} ${args.join(' ')}); run \`npm run build\` to see it all\n`);
  process.exit(result.status ?? 1);
}

const bin = (name) => join(root, 'node_modules', '.bin', name);
const mode = process.argv[2] ?? 'build';
const stamp = readJson(stampPath) ?? {};
const serverNow = () => fingerprint([...filesUnder('src'), ...shared, 'tsconfig.build.json']);
const studioNow = () => {
  const inputs = readJson(studioInputsPath);
  return inputs && fingerprint([...inputs, ...shared, 'studio/vite.config.ts']);
};

if (mode === '--record') {
  writeStamp({ server: serverNow(), studio: studioNow() });
  process.exit(0);
}
const serverStale = stamp.server !== serverNow() || !existsSync(join(root, 'dist', 'cli', 'main.js'));
const studioStale = !stamp.studio || stamp.studio !== studioNow() || !existsSync(join(root, 'dist', 'studio', 'index.html'));
if (mode === '--check') process.exit(serverStale || studioStale ? 3 : 0);

if (serverStale) {
  run('server', bin('tsc'), ['-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo']);
  stamp.server = serverNow();
}
if (studioStale) {
  run('studio', bin('vite'), ['build', '--config', 'studio/vite.config.ts', '--logLevel', verbose ? 'info' : 'error']);
  stamp.studio = studioNow();
}
writeStamp(stamp);

function writeStamp(value) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(stampPath, `${JSON.stringify(value)}\n`);
}
