/**
 * What the fleet overview reads from the platform: the `fleetHealth` query (figures computed on the server, so the
 * page holds no fleet rule of its own) and the `alerts` subscription (alert periods opening and closing).
 */

/** The uptime window the overview shows (the "uptime over the last 30 days"). */
export const uptimeWindowDays = 30;
/** How many entries each list of the overview shows; the counts beside them are the whole fleet's. */
export const listLimit = 10;
/** How many live alert events the overview keeps, newest first. */
export const liveAlertsKept = 20;

export const fleetHealthQuery = /* GraphQL */ `
  query StudioFleetHealth($days: Int, $limit: Int) {
    fleetHealth(days: $days, limit: $limit) {
      generatedAt
      windowDays
      batteryBelow
      statusCounts {
        total
        new
        installed
        uninstalled
        quarantine
        retired
      }
      alerting {
        thingCount
        alertCount
        alerts {
          tuid
          alertType
          severity
          ruleId
          value
          since
        }
      }
      silentGateways {
        count
        gateways {
          gatewayTuid
          thingCount
          since
        }
      }
      lowBattery {
        count
        things {
          tuid
          batteryLevel
        }
      }
      groups {
        groupId
        thingCount
        installed
        online
        onlineShare
        uptime
        battery {
          bucket
          count
        }
      }
    }
  }
`;

export const alertEventsSubscription = /* GraphQL */ `
  subscription StudioAlertEvents {
    alerts {
      tuid
      alertType
      severity
      ruleId
      value
      state
      from
      to
    }
  }
`;

export type InstallationStatus = 'new' | 'installed' | 'uninstalled' | 'quarantine' | 'retired';

export interface BatteryBucket {
  bucket: string;
  count: number;
}

export interface GroupHealth {
  groupId: string;
  thingCount: number;
  installed: number;
  online: number;
  onlineShare: number | null;
  uptime: number | null;
  battery: BatteryBucket[];
}

export interface FleetHealth {
  generatedAt: number;
  windowDays: number;
  batteryBelow: number;
  statusCounts: Record<InstallationStatus | 'total', number>;
  alerting: { thingCount: number; alertCount: number; alerts: ActiveAlert[] };
  silentGateways: { count: number; gateways: { gatewayTuid: string; thingCount: number; since: number }[] };
  lowBattery: { count: number; things: { tuid: string; batteryLevel: number }[] };
  groups: GroupHealth[];
}

/** An active alert period as the overview lists it; a rule's with its rule, and each with its severity. */
export interface ActiveAlert {
  tuid: string;
  alertType: string;
  severity: string | null;
  ruleId: string | null;
  value: number | null;
  since: number;
}

export interface AlertEvent {
  tuid: string;
  alertType: string;
  severity: string | null;
  ruleId: string | null;
  value: number | null;
  state: 'opened' | 'closed';
  /** Local date-time of the period's start in the platform's ALERT_TIMEZONE (no offset). */
  from: string;
  to: string | null;
}

/** A live alert event as the overview lists it: with the browser time it arrived, and a key for the list. */
export interface ReceivedAlert extends AlertEvent {
  key: number;
  receivedMs: number;
}
