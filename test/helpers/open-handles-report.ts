/**
 * Loaded into every test file's process (`npm test` passes it with --import): when the file's tests are done and
 * the runner makes the process exit (--test-force-exit), names what was still open, such as a timer, a socket or
 * a child process. Without --test-force-exit such a file never exits and the whole run waits for it: on Node 24 even
 * --test-timeout does not end it. So the run goes on, and this line says which file to fix.
 */

/** What every test process has open to the runner: its pipes, and the request closing them. */
const expected = new Set(['PipeWrap', 'TTYWrap', 'CloseReq', 'FSReqCallback']);

if (process.env.NODE_TEST_CONTEXT) {
  process.on('exit', () => {
    const left = process.getActiveResourcesInfo().filter((resource) => !expected.has(resource));
    if (left.length > 0) process.stderr.write(`open handles when the tests of ${process.argv[1]} ended: ${left.join(', ')}\n`);
  });
}
