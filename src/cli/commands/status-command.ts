import type { Command } from 'commander';
import { deploymentStatus, keepsInstanceRegister, type InstanceStatus } from '../../domain/deployment/instance-registry.js';
import { withStore, type CliIo } from '../cli-io.js';

/** `thingdesk status [--json]`: the deployment's instances as the store sees them, live and silent. */
export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description('list the running instances of this deployment (from the store DATABASE_URL names): version, start, leases, consumer lag')
    .option('--json', 'print the instances as JSON')
    .action(async (options: { json?: boolean }) => {
      const { instances, register } = await withStore(io, async (deps, config) => ({
        instances: await deploymentStatus(deps),
        register: keepsInstanceRegister(config.databaseUrl),
      }));
      if (!register) {
        // One process serves a SQLite store; the register is kept where several instances share PostgreSQL.
        if (options.json) io.stdout(`${JSON.stringify({ instances: [], note: 'SQLite: a single instance, not registered' })}\n`);
        else
          io.stdout(
            'SQLite store: one platform process serves it; instances register only on PostgreSQL (check the process, or GET /healthz).\n',
          );
        return;
      }
      if (options.json) io.stdout(`${JSON.stringify({ instances })}\n`);
      else io.stdout(formatStatus(instances, Date.now()));
    });
}

function formatStatus(instances: readonly InstanceStatus[], now: number): string {
  if (instances.length === 0) return 'No instance is registered: none has run on this store, or all stopped cleanly.\n';
  const live = instances.filter((instance) => instance.live).length;
  const lines = [`${live} live of ${instances.length} registered`];
  for (const instance of instances) {
    const consumer = instance.details.consumer;
    lines.push(
      '',
      `${instance.id}  ${instance.live ? 'live' : `SILENT for ${Math.round((now - instance.heartbeatAt) / 1000)} s`}`,
      `  version ${instance.version} on ${instance.host}, started ${new Date(instance.startedAt).toISOString()}, broker ${instance.details.mqtt}`,
      ...(consumer
        ? [`  consumer slots ${consumer.slots.join(', ') || 'none'}; ${consumer.inFlight} uplinks in flight, oldest ${consumer.lagMs} ms`]
        : []),
      `  leases ${instance.leases.join(', ') || 'none'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
