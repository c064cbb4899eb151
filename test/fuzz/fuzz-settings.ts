/**
 * How every fuzz property runs (issue 8): with a fixed seed and a bounded number of runs, so CI stays
 * deterministic and fast; `FUZZ_LONG=1` runs many more cases and `FUZZ_SEED=<n>` explores another part of the
 * input space (a failure prints the seed and path to replay it).
 */
import fc from 'fast-check';

export const fuzzSeed = Number(process.env.FUZZ_SEED ?? 42);

/** Runs per property: small in CI, large behind FUZZ_LONG. The one knob of every fuzz file. */
export const numRuns = process.env.FUZZ_LONG ? 2000 : 50;

/** The fast-check parameters every fuzz property uses. */
export function fuzzParameters(runs: number = numRuns): fc.Parameters<unknown> {
  return { seed: fuzzSeed, numRuns: runs, endOnFailure: true };
}

/**
 * `fc.assert` with the fuzz parameters, failing with the whole report: counterexample, seed and path to replay,
 * and the error the property threw (the test runner would otherwise show only the first line).
 */
export async function assertProperty<T>(property: fc.IAsyncPropertyWithHooks<T>, runs: number = numRuns): Promise<void> {
  const details = await fc.check(property, fuzzParameters(runs) as fc.Parameters<T>);
  if (!details.failed) return;
  // Counterexamples may hold 1 MiB bodies: cut the report, keep the error whole.
  const report = fc.defaultReportMessage(details) ?? '';
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`${report.length > 4000 ? `${report.slice(0, 4000)}…[cut]` : report}\nGot error: ${cause.slice(0, 4000)}`);
}
