import { setFlagsFromString } from 'node:v8';

/**
 * Caps how far V8 lets the heap grow past what its last full collection kept (HEAP_GROWING_PERCENT; 0 keeps V8's own
 * choice). V8 picks that factor from the heap's size limit, which it derives from the host's memory: on a host with
 * many gigabytes it lets the old generation reach about four times the live set before it collects, so uplinks that
 * die after their commit but lived through two scavenges pile up as garbage (docs/decisions.md, "Peak RSS of the
 * embedded path"). Unlike a heap limit (`--max-old-space-size`), the cap never fails a process whose live set grows:
 * it only makes full collections come sooner. V8 reads the flag at every full collection, so setting it once the
 * process runs takes effect; only `thingdesk serve` does it, being the process's owner (tests and embedders are not).
 */
export function capHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
