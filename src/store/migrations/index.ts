import type { Migration } from 'kysely';
import * as identity from './0001-identity.js';
import * as thingsAndMessages from './0002-things-and-messages.js';
import * as installationsAndGroups from './0003-installations-and-groups.js';
import * as commands from './0004-commands.js';
import * as alerts from './0005-alerts.js';
import * as sessions from './0006-sessions.js';
import * as alertEngine from './0007-alert-engine.js';
import * as messagesAsServed from './0008-messages-as-served.js';
import * as thingsFillfactor from './0009-things-fillfactor.js';
import * as instances from './0010-instances.js';
import * as rollups from './0011-rollups.js';
import * as retention from './0012-retention.js';
import * as mqttSealedPasswords from './0013-mqtt-sealed-passwords.js';
import * as rateCounts from './0014-rate-counts.js';
import * as thingsMessageSeq from './0016-things-message-seq.js';
import * as rollupDays from './0017-rollup-days.js';
import * as thingRollupWatermark from './0018-thing-rollup-watermark.js';
import * as rollupDayEtags from './0019-rollup-day-etags.js';
import * as mqttClientIds from './0020-mqtt-client-ids.js';
import * as clusterSecrets from './0021-cluster-secrets.js';
import * as webhooks from './0022-webhooks.js';
import * as thingNamesAndLabels from './0023-thing-names-and-labels.js';
import * as audit from './0024-audit.js';
import * as singleSignOn from './0025-single-sign-on.js';
import * as alertWorkItems from './0026-alert-work-items.js';
import * as alertRules from './0027-alert-rules.js';
import * as auditAppendFunction from './0029-audit-append-function.js';
import * as thingsByGateway from './0030-things-by-gateway.js';
import * as notificationChannels from './0031-notification-channels.js';
import * as slidingDigestWindow from './0032-sliding-digest-window.js';
import * as thingsByLastSeen from './0033-things-by-last-seen.js';
import * as organizationThingCounts from './0034-organization-thing-counts.js';

/**
 * Every migration, in order. Names sort in the order they run; a new migration gets the next number and is
 * added here (a static list, so the built package needs no directory scan).
 */
export const migrations: Record<string, Migration> = {
  '0001-identity': identity,
  '0002-things-and-messages': thingsAndMessages,
  '0003-installations-and-groups': installationsAndGroups,
  '0004-commands': commands,
  '0005-alerts': alerts,
  '0006-sessions': sessions,
  '0007-alert-engine': alertEngine,
  '0008-messages-as-served': messagesAsServed,
  '0009-things-fillfactor': thingsFillfactor,
  '0010-instances': instances,
  '0011-rollups': rollups,
  '0012-retention': retention,
  '0013-mqtt-sealed-passwords': mqttSealedPasswords,
  '0014-rate-counts': rateCounts,
  '0016-things-message-seq': thingsMessageSeq,
  '0017-rollup-days': rollupDays,
  '0018-thing-rollup-watermark': thingRollupWatermark,
  '0019-rollup-day-etags': rollupDayEtags,
  '0020-mqtt-client-ids': mqttClientIds,
  '0021-cluster-secrets': clusterSecrets,
  '0022-webhooks': webhooks,
  '0023-thing-names-and-labels': thingNamesAndLabels,
  '0024-audit': audit,
  '0025-single-sign-on': singleSignOn,
  '0026-alert-work-items': alertWorkItems,
  '0027-alert-rules': alertRules,
  '0029-audit-append-function': auditAppendFunction,
  '0030-things-by-gateway': thingsByGateway,
  '0031-notification-channels': notificationChannels,
  '0032-sliding-digest-window': slidingDigestWindow,
  '0033-things-by-last-seen': thingsByLastSeen,
  '0034-organization-thing-counts': organizationThingCounts,
};
