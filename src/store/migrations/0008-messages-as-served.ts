import { sql, type Kysely } from 'kysely';
import { isSqlite } from './dialect.js';

/**
 * `messages.body` becomes the message as every reader serves it: the JSON received with `deploymentGroupId` (the
 * thing's group when it arrived, `unassigned` for none) already appended. That group never changes after arrival,
 * so it is spliced once at ingest (`messageJsonWithGroup`) instead of on every read: a message list is then one
 * column read straight into the response, which is what makes `GET /things/{tuid}/messages` cheap.
 *
 * Rows stored before this migration are rewritten here with the same splice in SQL (the only place the rule is
 * spelled in SQL; it runs once). `group_id` stays as the queryable copy of the group.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const group = groupJson(db);
  await sql`update messages set body = case
              when body = '{}' then '{"deploymentGroupId":' || ${group} || '}'
              else substr(body, 1, length(body) - 1) || ',"deploymentGroupId":' || ${group} || '}'
            end`.execute(db);
}

/** Takes the appended `deploymentGroupId` off again (it is always the last member, as spliced above). */
export async function down(db: Kysely<unknown>): Promise<void> {
  const group = groupJson(db);
  const suffixLength = sql`length(',"deploymentGroupId":' || ${group} || '}')`;
  await sql`update messages set body = case
              when body = '{"deploymentGroupId":' || ${group} || '}' then '{}'
              else substr(body, 1, length(body) - ${suffixLength}) || '}'
            end`.execute(db);
}

/** The row's group as a JSON string (`unassigned` for none), as `JSON.stringify` spells it in messageJsonWithGroup. */
function groupJson(db: Kysely<unknown>) {
  return isSqlite(db) ? sql`json_quote(coalesce(group_id, 'unassigned'))` : sql`to_json(coalesce(group_id, 'unassigned'))::text`;
}
