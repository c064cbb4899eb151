import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import type { DomainDeps } from '../domain-deps.js';
import { DuplicateKeyError, conflict, validationFailed, type FieldProblem } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import {
  announceMqttCredential,
  checkMqttCredentialInput,
  mqttUsernameTaken,
  prepareMqttCredential,
  type CheckedMqttCredential,
} from '../identity/identity-service.js';
import { runHeavyWork } from '../workload/heavy-work-gate.js';
import type { RequestWork } from '../workload/request-work.js';
import type { ImportFormat } from './import-limits.js';
import { readImportRecords } from './import-reader.js';
import type { ImportPlan } from './thing-import-types.js';

/** The columns of an MQTT credentials file. */
export const credentialColumns = ['username', 'kind', 'password'] as const;

/** One row of a credentials plan; `password` only for a created credential whose password was generated (shown once). */
export interface CredentialPlanRow {
  row: number;
  username: string;
  kind: string;
  action: 'create' | 'error';
  password?: string;
  errors?: FieldProblem[];
}

/**
 * Imports MQTT credentials (SPEC section 12, POST /mqtt-credentials/import): rows `username, kind, password?`, each
 * checked by the single creation's rules (identity-service.ts checkMqttCredentialInput); an existing username or
 * one repeated in the file is an error row. All or none: the credentials are stored in one transaction, then each
 * is announced as a single creation announces it (`mqttCredentialCreated`, which a managed broker such as
 * Mosquitto's dynamic security provisions). Generated passwords are in the answer, once.
 */
export async function importMqttCredentials(
  deps: Pick<DomainDeps, 'store' | 'clock' | 'heavyWork' | 'sealMqttPassword' | 'passwords'> & Partial<Pick<DomainDeps, 'events'>>,
  principal: Principal,
  input: { body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>; format: ImportFormat; dryRun: boolean },
  work: RequestWork = {},
): Promise<ImportPlan<CredentialPlanRow>> {
  return runHeavyWork(deps, principal, work, async () => {
    const rows: { plan: CredentialPlanRow; checked?: CheckedMqttCredential }[] = [];
    const firstRows = new Map<string, number>();
    for await (const record of readImportRecords(input.body, input.format, { columns: credentialColumns, required: 'username' })) {
      const text = (key: string) => (typeof record.values[key] === 'string' ? (record.values[key] as string) : undefined);
      const username = text('username') ?? '';
      const kind = text('kind') ?? '';
      const problems = [...record.problems];
      if (username === '') problems.push({ field: 'username', message: 'username is required' });
      const checked = checkMqttCredentialInput({ kind, username: username || 'missing', password: text('password') });
      problems.push(...checked.problems);
      const first = firstRows.get(username);
      if (first !== undefined)
        problems.push({ field: 'username', message: `username ${username} appears more than once in the file (first in row ${first})` });
      else if (username !== '') firstRows.set(username, record.row);
      rows.push({
        plan: { row: record.row, username, kind, action: 'create', ...(problems.length > 0 ? { errors: problems } : {}) },
        checked,
      });
    }
    const taken = await deps.store.mqttCredentials.takenUsernames([...firstRows.keys()]);
    for (const { plan } of rows) {
      if (taken.has(plan.username) && firstRows.get(plan.username) === plan.row)
        (plan.errors ??= []).push({ field: 'username', message: mqttUsernameTaken(plan.username) });
      if (plan.errors) plan.action = 'error';
    }
    const errorCount = rows.filter((r) => r.plan.action === 'error').length;
    const counts = { create: rows.length - errorCount, update: 0, unchanged: 0, error: errorCount };
    if (input.dryRun) return { dryRun: true, applied: false, counts, rows: rows.map((r) => r.plan) };
    if (errorCount > 0) {
      const problems = rows.flatMap((r) =>
        (r.plan.errors ?? []).map((p) => ({ field: `rows[${r.plan.row}].${p.field}`, message: p.message })),
      );
      throw validationFailed(problems, `${errorCount} row${errorCount === 1 ? ' is' : 's are'} in error; nothing was applied.`);
    }
    const prepared: Awaited<ReturnType<typeof prepareMqttCredential>>[] = [];
    for (const { checked } of rows) prepared.push(await prepareMqttCredential(deps, principal.organizationId, checked!));
    try {
      const operation = {
        organizationId: principal.organizationId,
        action: 'mqtt_credential.import',
        target: { type: 'mqtt_credentials', id: null },
      };
      await audited(deps, principal, operation, async () => {
        await deps.store.mqttCredentials.createMany(prepared);
        const usernames = prepared.map(({ credential }) => credential.username).join(',');
        return { result: undefined, details: auditFields({ created: prepared.length, usernames }) };
      });
    } catch (error) {
      if (error instanceof DuplicateKeyError)
        throw conflict('A username of the file was taken meanwhile; nothing was applied. Plan it again.');
      throw error;
    }
    for (const { credential } of prepared) announceMqttCredential(deps, credential.username);
    return {
      dryRun: false,
      applied: true,
      counts,
      rows: rows.map(({ plan, checked }) => (checked!.generated ? { ...plan, password: checked!.password } : plan)),
    };
  });
}
