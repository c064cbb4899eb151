import { connectAsync } from 'mqtt';

/**
 * Ends the persistent consumer sessions of a shared group on an external broker (a clean start under each slot's
 * client id), so a test leaves no session taking a share of `$share/{group}/...` on the shared broker.
 */
export async function forgetConsumerSessions(brokerUrl: string, group: string, slots: number): Promise<void> {
  for (let slot = 0; slot < slots; slot++) {
    const client = await connectAsync(brokerUrl, {
      clientId: `${group}-slot-${slot}`,
      protocolVersion: 5,
      clean: true,
      properties: { sessionExpiryInterval: 0 },
      reconnectPeriod: 0,
    });
    await client.endAsync();
  }
}
