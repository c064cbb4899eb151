import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type Selectable } from 'kysely';
import type { SortDirection, ThingListFilter, ThingSort, ThingSortKey } from '../domain/things/thing-list-types.js';
import { labelsFromJson, sameLabels } from '../domain/things/thing-labels.js';
import { thingChanged, writeOutbox, type WebhookOutboxHolder } from './webhook-outbox-writer.js';
import type { InstallationStatus, Thing } from '../domain/things/thing-types.js';
import type { Schema, ThingsTable } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';
import type { Dialect } from './database.js';
import type { Labels } from '../domain/things/thing-labels.js';
import { labelledTuids, writeNameAndLabels } from './thing-labels-sql.js';

export type ThingsStore = ReturnType<typeof thingsStore>;

export function thingsStore(
  db: Kysely<Schema>,
  dialect: Dialect,
  directReads: SqliteDirectReads | undefined,
  outbox: WebhookOutboxHolder = {},
) {
  return {
    /**
     * The thing with this TUID whoever owns it; callers check the organization. Every thing-scoped request starts
     * here, so on SQLite it is a direct prepared read when it can be (SqliteDirectReads).
     */
    async get(tuid: string): Promise<Thing | undefined> {
      const direct = directReads?.statement<Selectable<ThingsTable>>('select * from things where tuid = ?', 'rows');
      const row = direct ? direct.get(tuid) : await db.selectFrom('things').selectAll().where('tuid', '=', tuid).executeTakeFirst();
      return row && toThing(row);
    },
    /**
     * One page of an organization's things, in the filter's sort order (default: by TUID), ties by TUID. `groupId`
     * null lists the things in no group; `alerting` true keeps only things with an active alert, false only those
     * without; `after` continues after the previous page's last thing. Unknown values (no battery report, never
     * heard) sort last in either direction.
     */
    async list(organizationId: string, filter: ThingListFilter): Promise<Thing[]> {
      const sort = filter.sort ?? { key: 'tuid', direction: 'asc' };
      if (sort.key === 'last_seen' && !narrowed(filter))
        return (await listByLastSeen(db, organizationId, filter, sort.direction)).map(toThing);
      const sortExpression = sortExpressionOf(sort, dialect);
      let query = filterThings(db.selectFrom('things').selectAll(), organizationId, filter);
      if (filter.after !== undefined) {
        const { value, tuid } = filter.after;
        const beyond = sql.raw(sort.direction === 'asc' ? '>' : '<');
        if (sort.key === 'tuid') query = query.where('tuid', sort.direction === 'asc' ? '>' : '<', tuid);
        else if (sort.key === 'name' && value === null) query = query.where(sql<boolean>`(name is null and tuid ${beyond} ${tuid})`);
        else {
          // Things without a name come after every named one, in either direction (the `or name is null`).
          const unnamedAfter = sort.key === 'name' ? sql` or name is null` : sql``;
          query = query.where(
            sql<boolean>`(${sortExpression} ${beyond} ${value} or (${sortExpression} = ${value} and tuid ${beyond} ${tuid})${unnamedAfter})`,
          );
        }
      }
      if (sort.key === 'name') query = query.orderBy(sql`${sortExpression} ${sql.raw(sort.direction)} nulls last`);
      else if (sort.key !== 'tuid') query = query.orderBy(sortExpression, sort.direction);
      const rows = await query.orderBy('tuid', sort.direction).limit(filter.limit).execute();
      return rows.map(toThing);
    },
    /** How many things the filter matches, counted up to `cap` (so a count over a huge fleet stays cheap). */
    async countMatching(organizationId: string, filter: Omit<ThingListFilter, 'sort' | 'after' | 'limit'>, cap: number): Promise<number> {
      const matching = filterThings(db.selectFrom('things').select('tuid'), organizationId, { ...filter, limit: cap }).limit(cap);
      const row = await db
        .selectFrom(matching.as('m'))
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** The value a thing has in `list`'s order (an unknown one's stand-in included), for the next page's cursor. */
    sortValueOf(thing: Thing, sort: ThingSort): string | number | null {
      const value = sortValueOf(thing, sort.key);
      if (sort.key === 'name') return value;
      return value ?? thingSortColumns[sort.key].nullsLast?.[sort.direction] ?? '';
    },
    /**
     * Sets a thing's name and labels (either may be left as it is: undefined) when it is the organization's, in one
     * transaction: the things row and thing_labels together. Undefined (nothing written) for a thing the
     * organization does not hold; otherwise the thing before and after.
     */
    async updateNameAndLabels(input: {
      organizationId: string;
      tuid: string;
      name?: string | null;
      labels?: Labels;
    }): Promise<{ before: Thing; after: Thing } | undefined> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('things')
          .selectAll()
          .where('tuid', '=', input.tuid)
          .where('organization_id', '=', input.organizationId)
          .$if(dialect === 'postgres', (qb) => qb.forUpdate())
          .executeTakeFirst();
        if (!row) return undefined;
        const before = toThing(row);
        await writeNameAndLabels(trx, before, { name: input.name, labels: input.labels });
        const after = toThing(await trx.selectFrom('things').selectAll().where('tuid', '=', input.tuid).executeTakeFirstOrThrow());
        // thing.changed for webhooks (SPEC 11), in this transaction: the outbox.
        const changes: Record<string, { from: unknown; to: unknown }> = {};
        if (before.name !== after.name) changes.name = { from: before.name, to: after.name };
        if (!sameLabels(before.labels, after.labels)) changes.labels = { from: before.labels, to: after.labels };
        if (Object.keys(changes).length > 0)
          await writeOutbox(trx, outbox, [thingChanged(after.organizationId, after.tuid, after.groupId, changes)]);
        return { before, after };
      });
    },
    /** Every label key the organization's things carry, sorted (the label columns of an export). */
    async labelKeys(organizationId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('thing_labels')
        .select('label_key')
        .distinct()
        .where('organization_id', '=', organizationId)
        .orderBy('label_key')
        .execute();
      return rows.map((row) => row.label_key);
    },
    /** All the organization's things, exact and one row's read however large the fleet (kept by triggers, migration 0034). */
    async count(organizationId: string): Promise<number> {
      const row = await db
        .selectFrom('organization_thing_counts')
        .select('thing_count')
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return Number(row?.thing_count ?? 0);
    },
    /** The organization's things in `groupId` (null: in no group), in no particular order. */
    async listInGroup(organizationId: string, groupId: string | null): Promise<Thing[]> {
      const rows = await db
        .selectFrom('things')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('group_id', groupId === null ? 'is' : '=', groupId)
        .execute();
      return rows.map(toThing);
    },
    /**
     * Gives up an organization's claim on a TUID: the thing and everything recorded for it in that organization
     * (messages, installation and command history, alerts) are deleted in one transaction, so the next uplink
     * naming the TUID claims it anew. False when the organization does not hold it.
     */
    async release(organizationId: string, tuid: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const owned = await trx
          .deleteFrom('things')
          .where('organization_id', '=', organizationId)
          .where('tuid', '=', tuid)
          .executeTakeFirst();
        if (Number(owned.numDeletedRows) === 0) return false;
        await trx.deleteFrom('messages').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('thing_rollups').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('thing_rollup_days').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('thing_rollup_day_hours').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('thing_labels').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('installation_history').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('alerts').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        const requests = trx
          .selectFrom('command_requests')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('tuid', '=', tuid);
        await trx.deleteFrom('command_items').where('tuid', '=', tuid).where('request_id', 'in', requests).execute();
        await trx.deleteFrom('command_requests').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        return true;
      });
    },
  };
}

/**
 * The column each sort key orders by. Unknown numbers sort last either way: they stand in as a value beyond every
 * real one (`nullsLast`), the same on both stores (whose NULL ordering differs). Text has no such value, so things
 * without a name are put last explicitly (`nulls last`, and `or name is null` after a cursor).
 */
const thingSortColumns: Record<ThingSortKey, { column: keyof ThingsTable & string; nullsLast?: { asc: number; desc: number } }> = {
  tuid: { column: 'tuid' },
  name: { column: 'name' },
  last_seen: { column: 'last_heard_at', nullsLast: { asc: Number.MAX_SAFE_INTEGER, desc: -1 } },
  battery_level: { column: 'battery_level', nullsLast: { asc: 1e9, desc: -1e9 } },
  installation_status: { column: 'installation_status' },
};

/**
 * True when a filter narrows the things list beyond the organization. A narrowed list by last seen sorts its matches
 * (found through the filter's own index: a gateway's, a group's, a label's) rather than walking every thing in order
 * of last seen until a page matches, which could read all of them for a small group; and SQLite, which has no
 * statistics unless ANALYZE ran, would otherwise pick the walk for a gateway or a group.
 */
function narrowed(filter: ThingListFilter): boolean {
  const { sort: _sort, after: _after, limit: _limit, labels, ...narrowing } = filter;
  return (labels?.length ?? 0) > 0 || Object.values(narrowing).some((value) => value !== undefined);
}

/**
 * The things list by last seen, in the same order as the other numeric keys (never-heard things last, as if heard at
 * the direction's stand-in) but read as two walks of `things_organization_heard` (migration 0033): the heard things
 * in the index's order, stopping after a page, then, if the page is not full, the never-heard ones by TUID. Ordering
 * by `coalesce(last_heard_at, stand-in)` read and sorted every thing of the organization for each page.
 */
async function listByLastSeen(
  db: Kysely<Schema>,
  organizationId: string,
  filter: ThingListFilter,
  direction: SortDirection,
): Promise<Selectable<ThingsTable>[]> {
  const beyond = direction === 'asc' ? '>' : '<';
  const standIn = thingSortColumns.last_seen.nullsLast![direction];
  const after = filter.after;
  const afterValue = after === undefined ? undefined : Number(after.value);
  let heard = filterThings(db.selectFrom('things').selectAll(), organizationId, filter).where('last_heard_at', 'is not', null);
  if (after !== undefined) {
    heard = heard.where((eb) =>
      eb.or([eb('last_heard_at', beyond, afterValue!), eb.and([eb('last_heard_at', '=', afterValue!), eb('tuid', beyond, after.tuid)])]),
    );
  }
  const rows = await heard.orderBy('last_heard_at', direction).orderBy('tuid', direction).limit(filter.limit).execute();
  if (rows.length === filter.limit) return rows;
  // The never-heard things stand at `standIn`: all of them come after a cursor before it, those beyond its TUID
  // after a cursor at it, none after a cursor past it.
  const standInBeyondCursor = afterValue === undefined || (direction === 'asc' ? standIn > afterValue : standIn < afterValue);
  if (!standInBeyondCursor && afterValue !== standIn) return rows;
  let unheard = filterThings(db.selectFrom('things').selectAll(), organizationId, filter).where('last_heard_at', 'is', null);
  if (!standInBeyondCursor) unheard = unheard.where('tuid', beyond, after!.tuid);
  return [
    ...rows,
    ...(await unheard
      .orderBy('tuid', direction)
      .limit(filter.limit - rows.length)
      .execute()),
  ];
}

function sortExpressionOf(sort: ThingSort, dialect: Dialect): RawBuilder<unknown> {
  const { column, nullsLast } = thingSortColumns[sort.key];
  if (nullsLast) return sql`coalesce(${sql.ref(column)}, ${nullsLast[sort.direction]})`;
  // Names in code point order on both stores: SQLite compares text by its bytes (BINARY), PostgreSQL by the
  // database's collation (en_US sorts "b" before "C") unless told "C", which compares the UTF-8 bytes too.
  if (sort.key === 'name' && dialect === 'postgres') return sql`${sql.ref(column)} collate "C"`;
  return sql`${sql.ref(column)}`;
}

function sortValueOf(thing: Thing, key: ThingSortKey): string | number | null {
  if (key === 'name') return thing.name;
  if (key === 'last_seen') return thing.lastHeardAt;
  if (key === 'battery_level') return thing.summary.batteryLevel;
  if (key === 'installation_status') return thing.installationStatus;
  return thing.tuid;
}

/** The filters of a things list (not its order or position) on a query over `things`. */
function filterThings<O>(
  base: SelectQueryBuilder<Schema, 'things', O>,
  organizationId: string,
  filter: ThingListFilter,
): SelectQueryBuilder<Schema, 'things', O> {
  let query = base.where('organization_id', '=', organizationId);
  if (filter.groupId === null) query = query.where('group_id', 'is', null);
  else if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
  if (filter.installationStatus !== undefined) query = query.where('installation_status', '=', filter.installationStatus);
  if (filter.q) query = query.where(sql<boolean>`lower(tuid) like ${`%${escapeLike(filter.q.toLowerCase())}%`} escape '\\'`);
  if (filter.alerting === true) {
    // Driven by the organization's active alerts (index alerts_organization_closed): as cheap when one thing in
    // a thousand alerts as when every fifth does, where walking the things in TUID order would read them all.
    query = query.where(
      'tuid',
      'in',
      sql<string>`(select a.tuid from alerts a where a.organization_id = ${organizationId} and a.closed_at is null)`,
    );
  } else if (filter.alerting === false) {
    // Most things pass, so the walk in TUID order fills a page early; each thing costs one probe of the partial
    // index alerts_one_active (tuid, alert_type where closed_at is null).
    query = query.where(sql<boolean>`not exists (select 1 from alerts a where a.tuid = things.tuid and a.closed_at is null)`);
  }
  if (filter.gatewayTuid !== undefined) query = query.where('last_heard_gateway_tuid', '=', filter.gatewayTuid);
  if (filter.batteryBelow !== undefined) query = query.where('battery_level', '<', filter.batteryBelow);
  const silentBefore = filter.silentBefore;
  if (silentBefore !== undefined) {
    query = query.where((eb) => eb.or([eb('last_heard_at', 'is', null), eb('last_heard_at', '<', silentBefore)]));
  }
  // Each label is a probe of thing_labels' primary key (organization, key, value), its things in TUID order.
  for (const label of filter.labels ?? []) query = query.where('tuid', 'in', labelledTuids(organizationId, label));
  return query;
}

export function toThing(row: Selectable<ThingsTable>): Thing {
  return {
    tuid: row.tuid,
    organizationId: row.organization_id,
    groupId: row.group_id,
    installationStatus: row.installation_status as InstallationStatus,
    createdAt: row.created_at,
    summary: {
      timestamp: row.last_ts,
      gatewayTuid: row.last_gateway_tuid,
      batteryLevel: row.battery_level,
      version: row.version,
      location: row.lat !== null && row.lon !== null ? { lat: row.lat, lon: row.lon } : null,
    },
    lastHeardAt: row.last_heard_at,
    lastHeardGatewayTuid: row.last_heard_gateway_tuid,
    name: row.name ?? null,
    labels: labelsFromJson(row.labels),
  };
}

/** Escapes LIKE's wildcards (TUIDs may contain `_`) with a backslash. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
