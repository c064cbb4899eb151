/** Things per page of the list: one request per page, whatever the size of the fleet. */
export const pageSize = 50;

export interface ThingSummary {
  tuid: string;
  installationStatus: string;
  groupId: string;
  batteryLevel: number | null;
  timestamp: number | null;
  gatewayTuid: string | null;
}

export interface ThingsPage {
  things: {
    edges: { cursor: string; node: ThingSummary }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
  /** The organization's alerting things (only those, never the whole fleet), for the rows' alerting badges. */
  alertingThings: string[];
}

export const thingsPageQuery = /* GraphQL */ `
  query StudioThings($first: Int, $after: String, $q: String, $groupId: String, $installationStatus: String, $alerting: Boolean) {
    things(first: $first, after: $after, q: $q, groupId: $groupId, installationStatus: $installationStatus, alerting: $alerting) {
      edges {
        cursor
        node {
          tuid
          installationStatus
          groupId
          batteryLevel
          timestamp
          gatewayTuid
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
    alertingThings
  }
`;
