/** What the platform wrote into the page (src/http/studio/studio-routes.ts): the paths it serves. */
export interface StudioConfig {
  graphqlPath: string;
  restBasePath: string;
  mapTileUrl: string | null;
}

function readConfig(): StudioConfig {
  const defaults: StudioConfig = { graphqlPath: '/v1/graphql', restBasePath: '/api/v1', mapTileUrl: null };
  try {
    const text = document.getElementById('studio-config')?.textContent ?? '{}';
    return { ...defaults, ...(JSON.parse(text) as Partial<StudioConfig>) };
  } catch {
    return defaults;
  }
}

export const config: StudioConfig = readConfig();
