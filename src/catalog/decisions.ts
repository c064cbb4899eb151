/**
 * What this catalog decides where seed 002 says "not shown" or leaves a field unmarked. Rendered
 * at the top of docs/catalog.md; each decision also has a short comment where it is applied.
 */
export interface CatalogDecision {
  readonly topic: string;
  readonly decision: string;
}

export const catalogDecisions: readonly CatalogDecision[] = [
  {
    topic: 'Buffer encoding',
    decision:
      'A Buffer field travels as a hex string of whole bytes: an even number of hex digits, upper or lower case, at least one byte. ' +
      'Beacon data is short (an advertisement is at most 31 bytes) and is compared byte by byte with radio specifications; ' +
      'hex shows byte boundaries and has one spelling, where base64 has padding and URL-safe variants.',
  },
  {
    topic: 'Unmarked fields',
    decision:
      'A field the seed leaves unmarked is optional, except: transactionId on cloud-to-device configuration and command ' +
      'messages (the device echo is matched to the request by it, also on the 1402 response); an unmarked field next to ones the seed ' +
      'marks optional (1205 tuid, 1401 diagGroup and diagExpiry); the only field of a request (1203 btid); what an action ' +
      'cannot be done without (1300 binaries with at least one element, and binaryUrl and binaryType in each; 1302 binaryUrl; ' +
      '1402 command and result). A 12200 carrying only identifiers is a valid read request.',
  },
  {
    topic: 'Integers and numbers',
    decision:
      'Fields with a value set, byte values, ids, counts, intervals, durations and timestamps must be integers. ' +
      'Measurements (batl, temp, lat, rssi, hysteresis thresholds, ...) may be any finite number.',
  },
  {
    topic: 'Beacon settings of 1207 and 1208',
    decision:
      'The seed shows the beaconChannels set, the reportInterval range (100 to 60000 ms) and the txPower values (-8, -4, 0, 4 dBm) ' +
      'only for 1206. 1207 and 1208 configure the same radio, so they use the same rules.',
  },
  {
    topic: 'Intervals of 1500',
    decision:
      'The seed does not give the units of measurementInterval and reportInterval; both must be positive integers and are passed to the device as sent.',
  },
  {
    topic: 'Ranges the seed implies',
    decision:
      'batl and humd 0 to 100 (percent), lat -90 to 90, lon -180 to 180, raw rssi 0 to 255 (the range of the dBm formula), ' +
      'beaconMajor and beaconMinor 0 to 255 (one byte), a reported scratchpadSeqNumber (1221) 0 to 255 while 1302 may only send 1 to 254, ' +
      'intervalMultiplier at least 1, hysteresis thresholds, uptime, durations and node ids at least 0. ' +
      'On reports these only ever produce warnings.',
  },
  {
    topic: 'Value sets the seed does not show',
    decision:
      'Where the seed shows no values (1110 chrg, 1303 result, 1312 binaryType) any value of the type is accepted. ' +
      '1302 binaryFlags defines only 1 (contains stack update), so 0 and 1 are accepted.',
  },
  {
    topic: 'Timestamps',
    decision:
      'tsmTs is Unix time in whole seconds. On a downlink it must be a non-negative integer. An uplink is readable with any finite ' +
      'tsmTs; a fraction or a negative value is stored with a warning.',
  },
  {
    topic: 'Events',
    decision:
      'tsmEv must be an integer but is not matched against the events listed for the id: the seed lists events seen, not a complete set, ' +
      'and leaves the events of 1501, 1502, 1503, 1505 and most reports unshown. Examples of cloud-to-device messages without a known event use 30, ' +
      'the configuration and command event.',
  },
  {
    topic: 'Direction',
    decision:
      'A downlink whose id is only ever sent by devices is rejected. An uplink of a cloud-to-device id (the event 31 echo of a configuration) ' +
      "is checked against that id's fields. Ids with a request and a response (1201, 1203, 1402) are checked against the request when sent " +
      'and against the response when received.',
  },
  {
    topic: 'Unknown fields',
    decision:
      'A downlink with a field its id does not define is rejected, except 13200, whose payload the seed does not define. ' +
      'Envelope fields are allowed on every message. Uplinks may carry any extra field and any id.',
  },
  {
    topic: 'Problem paths',
    decision:
      'Each problem names a path relative to the message: reportInterval, binaries[1].binaryType, tsmId; an empty path means the message itself.',
  },
];
