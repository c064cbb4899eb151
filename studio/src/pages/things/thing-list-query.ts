/** Things per page of the list: one request per page, whatever the size of the fleet. */
export const pageSize = 50;

export interface ThingSummary {
  tuid: string;
  name: string | null;
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
    /** Things matching the filters (exact below 100,000, else at least that many). */
    total: number;
    totalIsEstimate: boolean;
  };
  /** The organization's alerting things (only those, never the whole fleet), for the rows' alerting badges. */
  alertingThings: string[];
}

export const thingsPageQuery = /* GraphQL */ `
  query StudioThings(
    $first: Int
    $after: String
    $q: String
    $groupId: String
    $installationStatus: String
    $alerting: Boolean
    $gatewayTuid: String
    $batteryBelow: Int
    $silentForS: Int
    $sort: String
    $labels: [LabelInput!]
  ) {
    things(
      first: $first
      after: $after
      q: $q
      groupId: $groupId
      installationStatus: $installationStatus
      alerting: $alerting
      gatewayTuid: $gatewayTuid
      batteryBelow: $batteryBelow
      silentForS: $silentForS
      sort: $sort
      labels: $labels
    ) {
      total
      totalIsEstimate
      edges {
        cursor
        node {
          tuid
          name
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

/** The columns the list sorts by, with the API's sort key (SPEC section 16). */
export const sortableColumns: Readonly<Record<string, string>> = {
  TUID: 'tuid',
  Name: 'name',
  Status: 'installation_status',
  Battery: 'battery_level',
  'Last seen': 'last_seen',
};

/** The key and direction of a `sort` value of the URL (`last_seen:desc`); by TUID ascending when absent. */
export function parseSort(value: string): { key: string; direction: 'asc' | 'desc' } {
  const [key = 'tuid', direction] = value.split(':');
  return { key: key || 'tuid', direction: direction === 'desc' ? 'desc' : 'asc' };
}

/** A label filter of the URL (`label=site:north`) as the API's LabelInput, or null when it is not `key:value`. */
export function parseLabelFilter(value: string): { key: string; value: string } | null {
  const at = value.indexOf(':');
  return at < 1 ? null : { key: value.slice(0, at), value: value.slice(at + 1) };
}

/** A thing's battery is low (BATTERY_LOW_PERCENT) or it is silent (not heard for DEVICE_TIMEOUT_S): the row is marked. */
export function rowMarks(
  node: Pick<ThingSummary, 'batteryLevel' | 'timestamp'>,
  nowMs: number,
  limits: { batteryLowPercent: number; deviceTimeoutS: number },
): { lowBattery: boolean; silent: boolean } {
  return {
    lowBattery: node.batteryLevel !== null && node.batteryLevel < limits.batteryLowPercent,
    silent: node.timestamp !== null && nowMs / 1000 - node.timestamp > limits.deviceTimeoutS,
  };
}
