/**
 * A fleet in a process of its own, so its CPU is not the platform's event loop: runs `startFleet` with the JSON
 * options of argv[2] until SIGTERM, then prints its report as one JSON line. Started by retention-sweep.ts.
 */
import { startFleet, type FleetOptions } from '../../src/simulator/index.js';

const options = JSON.parse(process.argv[2] ?? '{}') as FleetOptions;
const fleet = await startFleet(options);
process.once('SIGTERM', () => {
  void fleet.stop().then((report) => {
    process.stdout.write(`${JSON.stringify({ report, lastReportTs: fleet.lastReportTs() })}\n`);
    process.exit(0);
  });
});
