import type { Labels } from '../things/thing-labels.js';
import type { InstallationStatus, Thing } from '../things/thing-types.js';
import type { ThingChanges } from '../things/thing-changes.js';
import type { FieldProblem } from '../errors.js';

/** What the import reads of the store (src/store/thing-import-store.ts); within a write, the things read are locked. */
export interface ThingImportReads {
  /** The things with these TUIDs, whoever owns them. */
  things(tuids: readonly string[]): Promise<Map<string, Thing>>;
  /** Which of these group ids the organization has. */
  groups(organizationId: string, groupIds: readonly string[]): Promise<Set<string>>;
}

/** One thing's change as an import writes it: the installation move, group, name and labels (undefined: as it is). */
export interface ThingImportWrite {
  organizationId: string;
  tuid: string;
  at: number;
  responsible: string;
  /** undefined: the thing does not exist yet and is claimed for the organization (history `new`). */
  before: Thing | undefined;
  status?: { from: InstallationStatus; to: InstallationStatus };
  groupId?: string | null;
  name?: string | null;
  labels?: Labels;
}

/** The import's writes, all inside one transaction. */
export interface ThingImportWrites extends ThingImportReads {
  createGroup(group: { organizationId: string; groupId: string; createdAt: number }): Promise<void>;
  /** false when the thing is no longer as read (claimed or moved meanwhile): the import is retried from the start. */
  writeThing(write: ThingImportWrite): Promise<boolean>;
  /** A chunk's writes at once (new things in a few statements); false as writeThing. */
  writeThings(writes: readonly ThingImportWrite[]): Promise<boolean>;
  /** The chunk's `thing.changed` events for webhooks (SPEC 11), written in the import's transaction (the outbox). */
  announceChanges(changed: readonly ImportedChange[]): Promise<void>;
}

/** What an applied row changed, with the thing's group afterwards (webhooks filter by it). */
export interface ImportedChange {
  organizationId: string;
  tuid: string;
  groupId: string | null;
  changes: ThingChanges;
}

/** The store's side of an import: reads outside a transaction (a dry run) and one transaction for an applied import. */
export interface ThingImportStore {
  reads: ThingImportReads;
  write<T>(work: (writes: ThingImportWrites) => Promise<T>): Promise<T>;
}

export type ImportAction = 'create' | 'update' | 'unchanged' | 'error';

/** One row of the plan (SPEC section 12). */
export interface PlanRow {
  row: number;
  tuid: string;
  action: ImportAction;
  changes?: ThingChanges;
  errors?: FieldProblem[];
}

/** The plan of an import: what each row does (or why it cannot), the counts over the whole file. */
export interface ImportPlan<Row = PlanRow> {
  dryRun: boolean;
  applied: boolean;
  counts: Record<ImportAction, number>;
  rows: Row[];
}
