/** What the platform wrote into the page (src/http/studio/studio-routes.ts): the paths it serves. */
export interface StudioConfig {
  graphqlPath: string;
  restBasePath: string;
  mapTileUrl: string | null;
  /** ALERT_TIMEZONE, BATTERY_LOW_PERCENT, DEVICE_TIMEOUT_S of the platform (src/http/studio/studio-routes.ts). */
  alertTimeZone: string;
  batteryLowPercent: number;
  deviceTimeoutS: number;
  /** `mqtt://host:port` of an external broker, or null: the embedded one on `mqttPort` of this host. */
  mqttBroker: string | null;
  mqttPort: number;
}

function readConfig(): StudioConfig {
  const defaults: StudioConfig = {
    graphqlPath: '/v1/graphql',
    restBasePath: '/api/v1',
    mapTileUrl: null,
    alertTimeZone: 'UTC',
    batteryLowPercent: 15,
    deviceTimeoutS: 3600,
    mqttBroker: null,
    mqttPort: 1883,
  };
  try {
    const text = document.getElementById('studio-config')?.textContent ?? '{}';
    return { ...defaults, ...(JSON.parse(text) as Partial<StudioConfig>) };
  } catch {
    return defaults;
  }
}

export const config: StudioConfig = readConfig();
