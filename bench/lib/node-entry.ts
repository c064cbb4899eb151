/**
 * How the benchmark runs TypeScript in child processes. The platform is compiled once per run into a private
 * temporary directory and run as plain JavaScript: tsx costs start-up time and, on Node 20, a module-loader
 * thread with its own heap, which would add to the platform's RSS (a target) without being part of it. The
 * compiled output goes to a temporary directory, not dist/, so a benchmark never overwrites the shared build.
 * BENCH_PLATFORM=tsx skips the build and runs the sources with tsx.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { packageVersion } from '../../src/app/package-version.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** `node --import tsx`, spelled with an absolute URL so it works from any working directory. */
export const tsxImportArgs: readonly string[] = ['--import', pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href];

/** A command line (after `node`) that runs `thingdesk`, and how it was obtained. */
export interface PlatformEntry {
  args: readonly string[];
  mode: 'compiled' | 'tsx';
  note: string;
  /** The temporary build directory to remove at the end, if any. */
  buildDir?: string;
}

export async function preparePlatformEntry(): Promise<PlatformEntry> {
  const tsxEntry: PlatformEntry = {
    args: [...tsxImportArgs, join(repoRoot, 'src/cli/main.ts')],
    mode: 'tsx',
    note: 'sources run with tsx',
  };
  if (process.env.BENCH_PLATFORM === 'tsx') return { ...tsxEntry, note: 'sources run with tsx (BENCH_PLATFORM=tsx)' };
  const buildDir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-build-'));
  const outDir = join(buildDir, 'dist');
  // tsc emits even when it reports type errors (someone else's half-finished edit); a missing entry is what fails.
  const typeErrors = await new Promise<string>((resolve) =>
    execFile(
      join(repoRoot, 'node_modules/.bin/tsc'),
      ['-p', join(repoRoot, 'tsconfig.build.json'), '--outDir', outDir],
      { cwd: repoRoot },
      (error, stdout) => resolve(error ? stdout.trim() : ''),
    ),
  );
  const main = join(outDir, 'cli/main.js');
  if (!existsSync(main)) return { ...tsxEntry, note: `build failed, sources run with tsx: ${typeErrors.split('\n')[0] ?? ''}` };
  // The compiled files import packages by name and are ES modules: give them the repo's node_modules and type.
  symlinkSync(join(repoRoot, 'node_modules'), join(buildDir, 'node_modules'), 'dir');
  writeFileSync(join(buildDir, 'package.json'), `${JSON.stringify({ type: 'module', version: packageVersion })}\n`);
  const note = typeErrors === '' ? 'compiled with tsc' : `compiled with tsc despite type errors (${typeErrors.split('\n').length} lines)`;
  return { args: [main], mode: 'compiled', note, buildDir };
}
