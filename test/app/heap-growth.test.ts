/**
 * HEAP_GROWING_PERCENT works as `thingdesk serve` applies it, once the process runs (capHeapGrowth): V8 reads the
 * flag at every full collection. If a Node release stopped honouring it at run time, the cap would silently do
 * nothing and the peak RSS would return (docs/decisions.md, "Peak RSS of the embedded path"); this catches that.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const churn = fileURLToPath(new URL('./heap-churn.ts', import.meta.url));

function peakHeapUsed(percent: number): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', churn, String(percent)], (error, stdout) => {
      if (error) reject(error);
      else resolve((JSON.parse(stdout) as { peakHeapUsed: number }).peakHeapUsed);
    }),
  );
}

test('a capped heap grows less past its live set than V8 lets it by default', async () => {
  // Side by side, so both see the same machine.
  const [uncapped, capped] = await Promise.all([peakHeapUsed(0), peakHeapUsed(25)]);
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
  assert.ok(capped < uncapped * 0.75, `peak heap used: ${mb(capped)} capped at 25 %, ${mb(uncapped)} with V8's own factor`);
});
