import { AppError, fieldProblem, type FieldProblem } from '../errors.js';
import { groupNotFound } from '../groups/group-service.js';
import { checkGroupId } from '../groups/group-id-rules.js';
import { unassignedGroupId } from '../groups/unassigned-group.js';
import { checkInstallationStatus, checkTransition, initialInstallationStatus } from '../installations/installation-state-machine.js';
import { thingNotFound } from '../things/thing-access.js';
import { changesBetween } from '../things/thing-changes.js';
import { checkLabelCount, checkLabels, checkLabelValue, checkThingName, sortedLabels, type Labels } from '../things/thing-labels.js';
import type { InstallationStatus, Thing } from '../things/thing-types.js';
import { brokenNewTuidRule, isValidTuid, tuidRuleInWords } from '../things/tuid.js';
import type { ImportRecord } from './import-reader.js';
import type { PlanRow, ThingImportWrite } from './thing-import-types.js';

/** The columns of a things file (CSV; `label.<key>` besides) and the keys of an NDJSON line (`labels` besides). */
export const thingColumns = ['tuid', 'name', 'group_id', 'installation_status'] as const;
export const labelColumnPrefix = 'label.';

/** What planning a row needs to know besides the row: the thing as stored and the organization's groups. */
export interface RowContext {
  organizationId: string;
  /** The stored thing with the row's TUID, whoever owns it. */
  current: Thing | undefined;
  /** Whether the organization has the group (or the import creates it). */
  groupExists(groupId: string): boolean;
  createGroups: boolean;
  reservedTuids: ReadonlySet<string>;
  /** The row where the TUID first appeared in the file, when this row repeats it. */
  firstRowOfTuid: number | undefined;
}

/** A planned row: the plan's line, and what to write (absent for `unchanged` and `error`) and the group it creates. */
export interface PlannedRow {
  plan: PlanRow;
  write?: Omit<ThingImportWrite, 'at' | 'responsible'>;
  createsGroup?: string;
}

/**
 * Plans one row by the rules of the single calls (SPEC section 12): the TUID rule and the reserved TUIDs of a
 * claim, NOT_FOUND's message for another organization's thing, the name and label rules (things/thing-labels.ts),
 * the group id rule and NOT_FOUND for an unknown group (unless the import creates groups), the installation
 * statuses and the state machine's moves (installation-state-machine.ts). Each problem is named by its column and
 * carries the single call's message. Pure.
 */
export function planThingRow(record: ImportRecord, context: RowContext): PlannedRow {
  const { row, values } = record;
  const problems: FieldProblem[] = [...record.problems];
  const tuid = typeof values['tuid'] === 'string' ? values['tuid'] : '';
  const { current } = context;
  if (tuid === '') problems.push(fieldProblem('tuid', 'is required'));
  else if (context.firstRowOfTuid !== undefined)
    problems.push(fieldProblem('tuid', `${tuid} appears more than once in the file (first in row ${context.firstRowOfTuid})`));
  else if (current === undefined) {
    const broken = brokenNewTuidRule(tuid, context.reservedTuids, 'tuid');
    if (broken) problems.push({ field: 'tuid', message: broken });
  } else if (!isValidTuid(tuid)) problems.push(fieldProblem('tuid', tuidRuleInWords));
  else if (current.organizationId !== context.organizationId) problems.push({ field: 'tuid', message: thingNotFound(tuid).message });

  const write: Omit<ThingImportWrite, 'at' | 'responsible'> = { organizationId: context.organizationId, tuid, before: current };
  let createsGroup: string | undefined;
  const from: InstallationStatus = current?.installationStatus ?? initialInstallationStatus;

  if (values['name'] !== undefined) {
    const problem = checkThingName('name', values['name']);
    if (problem) problems.push(problem);
    else write.name = values['name'] as string | null;
  }
  const labels = plannedLabels(values, current?.labels ?? {}, problems);
  if (labels) write.labels = labels;

  const group = values['group_id'];
  if (group !== undefined) {
    if (group === unassignedGroupId) write.groupId = null;
    else {
      const problem = checkGroupId('group_id', group);
      if (problem) problems.push(problem);
      else if (context.groupExists(group as string)) write.groupId = group as string;
      else if (context.createGroups) {
        write.groupId = group as string;
        createsGroup = group as string;
      } else problems.push({ field: 'group_id', message: groupNotFound(group as string).message });
    }
  }

  const status = values['installation_status'];
  if (status !== undefined) {
    const problem = checkInstallationStatus('installation_status', status);
    if (problem) problems.push(problem);
    else if (status !== from) {
      try {
        checkTransition(from, status as InstallationStatus);
        write.status = { from, to: status as InstallationStatus };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        problems.push({ field: 'installation_status', message: error.message });
      }
    }
  }

  if (problems.length > 0) return { plan: { row, tuid, action: 'error', errors: problems } };
  const after: Thing = {
    ...(current ?? emptyThing(tuid, context.organizationId)),
    installationStatus: write.status?.to ?? from,
    groupId: write.groupId !== undefined ? write.groupId : (current?.groupId ?? null),
    name: write.name !== undefined ? write.name : (current?.name ?? null),
    labels: write.labels ?? current?.labels ?? {},
  };
  const changes = changesBetween(current, after);
  if (current !== undefined && Object.keys(changes).length === 0) return { plan: { row, tuid, action: 'unchanged' } };
  return { plan: { row, tuid, action: current ? 'update' : 'create', changes }, write, createsGroup };
}

/**
 * The labels a row leaves the thing with, or undefined when it sets none: NDJSON `labels` replaces them all (as
 * PATCH does), each CSV `label.<key>` cell sets that one label and leaves the others.
 */
function plannedLabels(values: Record<string, unknown>, currentLabels: Labels, problems: FieldProblem[]): Labels | undefined {
  let labels: Record<string, string> | undefined;
  if (values['labels'] !== undefined) {
    const found = checkLabels('labels', values['labels']);
    if (found.length > 0) problems.push(...found);
    else labels = { ...(values['labels'] as Labels) };
  }
  for (const [column, value] of Object.entries(values)) {
    if (!column.startsWith(labelColumnPrefix)) continue;
    const problem = checkLabelValue(column, value);
    if (problem) {
      problems.push(problem);
      continue;
    }
    labels ??= { ...currentLabels };
    labels[column.slice(labelColumnPrefix.length)] = value as string;
  }
  if (!labels) return undefined;
  const tooMany = checkLabelCount('labels', labels);
  if (tooMany) problems.push(tooMany);
  return sortedLabels(labels);
}

function emptyThing(tuid: string, organizationId: string): Thing {
  return {
    tuid,
    organizationId,
    groupId: null,
    installationStatus: initialInstallationStatus,
    createdAt: 0,
    summary: { timestamp: null, gatewayTuid: null, batteryLevel: null, version: null, location: null },
    lastHeardAt: null,
    lastHeardGatewayTuid: null,
    name: null,
    labels: {},
  };
}
