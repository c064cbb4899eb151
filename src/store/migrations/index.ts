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
};
