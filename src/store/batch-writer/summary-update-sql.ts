/** The values of one thing's summary update. */
export type SummaryUpdateValue =
  'ts' | 'gw' | 'bat' | 'bat_ts' | 'ver' | 'ver_ts' | 'lat' | 'lon' | 'loc_ts' | 'heard_at' | 'heard_gw' | 'tuid';

/**
 * The SET clause of a thing's summary update, shared by both dialects. Each value is replaced only when the
 * candidate is at least as new (by tsmTs) as what the row holds, so concurrent or late batches can never make it
 * older. SQL evaluates every SET expression against the old row, so the guards compare with the old timestamps.
 * `value(name)` spells where a value comes from: a numbered parameter (SQLite) or a column of an unnest (PostgreSQL).
 */
export function summarySetClause(value: (name: SummaryUpdateValue) => string, column: (name: string) => string = (name) => name): string {
  const v = value;
  const c = column;
  const newer = (tsColumn: string, ts: string) =>
    `${v(ts as SummaryUpdateValue)} is not null and (${c(tsColumn)} is null or ${c(tsColumn)} <= ${v(ts as SummaryUpdateValue)})`;
  return `
    last_ts = case when ${newer('last_ts', 'ts')} then ${v('ts')} else ${c('last_ts')} end,
    last_gateway_tuid = case when ${newer('last_ts', 'ts')} then ${v('gw')} else ${c('last_gateway_tuid')} end,
    battery_level = case when ${newer('battery_ts', 'bat_ts')} then ${v('bat')} else ${c('battery_level')} end,
    battery_ts = case when ${newer('battery_ts', 'bat_ts')} then ${v('bat_ts')} else ${c('battery_ts')} end,
    version = case when ${newer('version_ts', 'ver_ts')} then ${v('ver')} else ${c('version')} end,
    version_ts = case when ${newer('version_ts', 'ver_ts')} then ${v('ver_ts')} else ${c('version_ts')} end,
    lat = case when ${newer('location_ts', 'loc_ts')} then ${v('lat')} else ${c('lat')} end,
    lon = case when ${newer('location_ts', 'loc_ts')} then ${v('lon')} else ${c('lon')} end,
    location_ts = case when ${newer('location_ts', 'loc_ts')} then ${v('loc_ts')} else ${c('location_ts')} end,
    last_heard_at = case when ${newer('last_heard_at', 'heard_at')} then ${v('heard_at')} else ${c('last_heard_at')} end,
    last_heard_gateway_tuid = case when ${newer('last_heard_at', 'heard_at')} then ${v('heard_gw')} else ${c('last_heard_gateway_tuid')} end`;
}

/** SQLite: one statement per thing with named parameters (`@ts`, `@gw`, ...), bound from an object. */
export function sqliteSummaryUpdateSql(): string {
  const parameter = (name: SummaryUpdateValue) => `@${name}`;
  return `update things set ${summarySetClause(parameter)} where tuid = ${parameter('tuid')}`;
}
