import type { TestApp } from './test-app.js';

/** A counter or gauge of an in-process platform, read from its registry (0 when it has no sample yet). */
export async function metric(server: TestApp, name: string): Promise<number> {
  const text = await server.app.metrics.registry.getSingleMetricAsString(name);
  return Number(/ (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** Consumer slots an instance on an external broker holds now (-1 when it reports none). */
export async function slotsHeld(server: TestApp): Promise<number> {
  const text = await server.app.metrics.registry.getSingleMetricAsString('thingdesk_mqtt_consumer');
  return Number(/figure="slots_held"\} (\d+)/.exec(text)?.[1] ?? -1);
}
