/**
 * What the studio costs a browser before its first view: the JavaScript the shell's index.html loads (the entry
 * and the chunks Vite preloads with it), gzipped as a server would send it, and each lazily loaded page's chunk.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface StudioWeight {
  /** Gzipped bytes of the JavaScript the shell loads at once. */
  initialJsGzip: number;
  initialCssGzip: number;
  files: { file: string; gzip: number; initial: boolean }[];
}

const gzipped = (path: string) => gzipSync(readFileSync(path), { level: 6 }).length;

export function measureStudioWeight(buildDirectory: string): StudioWeight {
  const html = readFileSync(join(buildDirectory, 'index.html'), 'utf8');
  const referenced = [...html.matchAll(/(?:src|href)="\/studio\/(assets\/[^"]+)"/g)].map((match) => match[1]!);
  const initial = new Set(referenced);
  const files = readdirSync(join(buildDirectory, 'assets'))
    .filter((file) => file.endsWith('.js') || file.endsWith('.css'))
    .map((file) => ({ file, gzip: gzipped(join(buildDirectory, 'assets', file)), initial: initial.has(`assets/${file}`) }))
    .sort((a, b) => b.gzip - a.gzip);
  const sum = (suffix: string) =>
    files.filter((file) => file.initial && file.file.endsWith(suffix)).reduce((total, file) => total + file.gzip, 0);
  return { initialJsGzip: sum('.js'), initialCssGzip: sum('.css'), files };
}
