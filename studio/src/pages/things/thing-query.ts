/** A thing as its page shows it: the summary, what may follow its status, and which series it has. */
export interface ThingDetail {
  tuid: string;
  batteryLevel: number | null;
  timestamp: number | null;
  location: { lat: number; lon: number } | null;
  gatewayTuid: string | null;
  version: string;
  installationStatus: string;
  groupId: string;
  name: string | null;
  labels: { key: string; value: string }[];
  nextInstallationStatuses: string[];
  seriesFields: { tsmId: number; fields: string[] }[];
}

export const thingQuery = /* GraphQL */ `
  query StudioThing($tuid: ID!) {
    thing(tuid: $tuid) {
      tuid
      batteryLevel
      timestamp
      location {
        lat
        lon
      }
      gatewayTuid
      version
      installationStatus
      groupId
      name
      labels {
        key
        value
      }
      nextInstallationStatuses
      seriesFields {
        tsmId
        fields
      }
    }
  }
`;
