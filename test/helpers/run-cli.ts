import { runCli } from '../../src/cli/program.js';
import { withTestSealingKey } from './test-app.js';

/**
 * Runs a `thingdesk` command in-process with its own environment (with the tests' sealing key for a PostgreSQL
 * store, test-app.ts); returns the exit code and what it printed.
 */
export async function runThingdesk(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { env: withTestSealingKey(env), stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}
