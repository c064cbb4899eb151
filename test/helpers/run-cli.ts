import { runCli } from '../../src/cli/program.js';

/** Runs a `thingdesk` command in-process with its own environment; returns the exit code and what it printed. */
export async function runThingdesk(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { env, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}
