/** What the platform wrote into the page (src/http/studio/studio-routes.ts): the paths it serves. */
export interface StudioConfig {
  graphqlPath: string;
  restBasePath: string;
  mapTileUrl: string | null;
  /** MAP_LINK_URL: `{lat}`/`{lon}` template of a link to the thing's location on a map service, or null (no link). */
  mapLinkUrl: string | null;
  /** COMMAND_ANSWER_TIMEOUT_S: a command `sent` longer than this ago reads `no answer`. */
  commandAnswerTimeoutS: number;
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
    mapLinkUrl: null,
    commandAnswerTimeoutS: 600,
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
