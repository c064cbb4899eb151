import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { coalescedReload } from '../coalesced-reload.js';
import type { DomainEventBus } from '../events.js';
import type { AlertChange } from '../alerts/alert-types.js';
import type { StoredMessage } from '../messages/message-types.js';
import { clears, holds, inScope, valueAt } from './rule-conditions.js';
import { RuleThingState } from './rule-thing-state.js';
import { RuleThresholdIndex } from './rule-threshold-index.js';
import type { AlertRule } from './rule-types.js';

type IndexedRule = AlertRule;

/** The rules of one message id that read one field: the value is read once per message for all of them. */
interface FieldRules {
  path: string[];
  rules: IndexedRule[];
  /** Which of `rules` a value needs looked at (built once all are in). */
  index?: RuleThresholdIndex;
}

type Target = { rule: IndexedRule; tuid: string; organizationId: string; at: number; value: number };

/** One change a batch makes, decided in memory: only transitions reach the store, in the order the messages came. */
type RuleStep =
  | { kind: 'open'; target: Target & { heldSince?: number } }
  | { kind: 'close'; ruleId: string; tuid: string; at: number }
  | { kind: 'start'; target: Target }
  | { kind: 'cancel'; ruleId: string; tuid: string; organizationId: string };

/** The transition writes of one store transaction. */
type RuleTransitions = Parameters<Parameters<Store['ruleEvaluation']['transitions']>[0]>[0];

const key = (ruleId: string, tuid: string) => `${ruleId}\n${tuid}`;

/**
 * Alert rules in the alert engine (SPEC section 13). Keeps in memory the enabled rules of every organization by
 * message id (reloaded when a rule changes here or on another instance, `alertRulesChanged`), which (rule, thing)
 * have an open period (from `alertChanged`, relayed) and which are waiting out `for_s` (`alertRulePendingChanged`,
 * relayed), so a batch costs one map lookup per message, a look only at the rules whose condition holds or which have
 * something open or pending for the thing, and a query only where something changes. The store's
 * state is the truth: the engine's periodic run refreshes this picture from it and opens what `for_s` made due.
 */
export class RuleEvaluator {
  private rules = new Map<string, FieldRules[]>();
  private readonly state = new RuleThingState();
  private stops: (() => void)[] = [];

  constructor(private readonly deps: { store: Store; clock: Clock; events: DomainEventBus }) {}

  async start(): Promise<void> {
    this.stops = [
      this.deps.events.onAnyInstance('alertRulesChanged', () => void this.reload().catch(() => undefined)),
      this.deps.events.onAnyInstance('alertChanged', (event) => {
        if (event.rule) this.state.setOpen(event.rule.ruleId, event.tuid, event.state === 'opened');
      }),
      this.deps.events.onAnyInstance('alertRulePendingChanged', (event) =>
        this.state.setPending(event.ruleId, event.tuid, event.pendingSince),
      ),
    ];
    await this.refresh();
  }

  stop(): void {
    for (const stop of this.stops) stop();
    this.stops = [];
  }

  /** Reads the enabled rules again; calls during a load run one more load after it. */
  readonly reload = coalescedReload(async () => {
    const byMessage = new Map<string, FieldRules[]>();
    for (const rule of await this.deps.store.alertRules.listAllEnabled()) {
      const k = `${rule.organizationId}\n${rule.tsmId}`;
      const fields = byMessage.get(k) ?? [];
      byMessage.set(k, fields);
      const same = fields.find((f) => f.path.join('.') === rule.field);
      if (same) same.rules.push(rule);
      else fields.push({ path: rule.field.split('.'), rules: [rule] });
    }
    for (const fields of byMessage.values()) for (const field of fields) field.index = new RuleThresholdIndex(field.rules);
    this.rules = byMessage;
  });

  /**
   * Replaces the picture of open periods and pending states with the store's, and reads the rules again (a rule
   * made by the CLI, whose change no instance heard).
   */
  async refresh(): Promise<void> {
    await this.reload();
    const state = await this.deps.store.ruleEvaluation.listState();
    this.state.clear();
    for (const k of state.open) this.state.setOpen(k.ruleId, k.tuid, true);
    for (const p of state.pending) this.state.setPending(p.ruleId, p.tuid, p.pendingSince);
  }

  /**
   * The ingest side: evaluates each stored message against its organization's rules for its message id. The
   * batch's transitions are written in one transaction, in message order; pending states are announced once it has
   * committed.
   */
  async evaluate(messages: readonly StoredMessage[]): Promise<AlertChange[]> {
    if (this.rules.size === 0) return [];
    const steps = this.plan(messages);
    if (steps.length === 0) return [];
    const announcements: Parameters<RuleEvaluator['announcePending']>[] = [];
    const changes = await this.deps.store.ruleEvaluation.transitions(async (writes) => {
      for (const step of steps) {
        if (step.kind === 'close') await writes.close([step]);
        else if (step.kind === 'open') {
          const opened = await writes.open([openingOf(step.target)]);
          // Not held as long as this instance believed (the store's state began later, or ended): wait from what it holds.
          if (opened.length === 0 && step.target.heldSince !== undefined) await this.startPending(writes, step.target, announcements);
        } else if (step.kind === 'cancel') {
          await writes.cancelPending([step]);
          announcements.push([step.organizationId, step.ruleId, step.tuid, null]);
        } else await this.startPending(writes, step.target, announcements);
      }
    });
    for (const announcement of announcements) this.announcePending(...announcement);
    return changes;
  }

  /** Records a pending state; opens at once when the store's state shows the condition held `for_s` already. */
  private async startPending(
    writes: RuleTransitions,
    p: Target,
    announcements: Parameters<RuleEvaluator['announcePending']>[],
  ): Promise<void> {
    const held = await writes.startPending([
      { ruleId: p.rule.id, organizationId: p.organizationId, tuid: p.tuid, at: p.at, value: p.value },
    ]);
    const since = held.get(key(p.rule.id, p.tuid));
    if (since === undefined) return;
    announcements.push([p.organizationId, p.rule.id, p.tuid, since]);
    // Held long enough already (another instance started it earlier): open now.
    if (p.at - since >= p.rule.forS * 1000) await writes.open([openingOf({ ...p, heldSince: p.at - p.rule.forS * 1000 })]);
  }

  /** The periodic run (lease holder): opens the `for_s` periods whose time has come, closes orphans. */
  async evaluateScheduled(): Promise<AlertChange[]> {
    const s = this.deps.store.ruleEvaluation;
    const now = this.deps.clock.now();
    const changes = await s.closeOrphans(now);
    const byId = new Map(
      [...this.rules.values()]
        .flat()
        .flatMap((field) => field.rules)
        .map((rule) => [rule.id, rule]),
    );
    const openings = (await s.listDue(now)).flatMap((due) => {
      const rule = byId.get(due.ruleId);
      if (!rule) return [];
      return [
        openingOf({
          rule,
          tuid: due.tuid,
          organizationId: rule.organizationId,
          at: now,
          value: due.value,
          heldSince: now - rule.forS * 1000,
        }),
      ];
    });
    if (openings.length > 0) changes.push(...(await s.transitions(async (writes) => void (await writes.open(openings)))));
    return changes;
  }

  private announcePending(organizationId: string, ruleId: string, tuid: string, pendingSince: number | null): void {
    this.deps.events.emit('alertRulePendingChanged', { organizationId, ruleId, tuid, pendingSince });
  }

  /** Decides, without I/O, what a batch changes, in message order; nothing in the common case. */
  private plan(messages: readonly StoredMessage[]): RuleStep[] {
    const steps: RuleStep[] = [];
    // What this batch has decided so far, ahead of the store: a thing's later message sees its earlier one's effect.
    const decided = new RuleThingState(true);
    for (const message of messages) {
      const fields = this.rules.get(`${message.organizationId}\n${message.tsmId}`);
      if (!fields) continue;
      const { tuid, organizationId } = message;
      const at = message.receivedAt;
      for (const field of fields) {
        const value = valueAt(message.message, field.path);
        if (value === undefined) continue;
        // Only the rules whose condition holds and those with something open or pending can change anything.
        for (const position of field.index!.candidates(value, this.state.rulesOf(tuid), decided.rulesOf(tuid))) {
          const rule = field.rules[position]!;
          if (!inScope(rule, tuid, message.groupId)) continue;
          const { open, pendingSince } = decided.get(rule.id, tuid) ?? this.state.get(rule.id, tuid) ?? idle;
          if (open) {
            if (!clears(rule, value)) continue;
            steps.push({ kind: 'close', ruleId: rule.id, tuid, at });
            decided.setOpen(rule.id, tuid, false);
          } else if (!holds(rule, value)) {
            if (pendingSince === null) continue;
            steps.push({ kind: 'cancel', ruleId: rule.id, tuid, organizationId });
            decided.setPending(rule.id, tuid, null);
          } else if (rule.forS === 0) {
            steps.push({ kind: 'open', target: { rule, tuid, organizationId, at, value } });
            decided.setOpen(rule.id, tuid, true);
          } else if (pendingSince === null) {
            steps.push({ kind: 'start', target: { rule, tuid, organizationId, at, value } });
            decided.setPending(rule.id, tuid, at);
          } else if (at - pendingSince >= rule.forS * 1000) {
            steps.push({ kind: 'open', target: { rule, tuid, organizationId, at, value, heldSince: at - rule.forS * 1000 } });
            decided.setOpen(rule.id, tuid, true);
          }
        }
      }
    }
    return steps;
  }
}

const idle = { open: false, pendingSince: null };

function openingOf(o: Target & { heldSince?: number }) {
  return {
    ruleId: o.rule.id,
    organizationId: o.organizationId,
    tuid: o.tuid,
    name: o.rule.name,
    severity: o.rule.severity,
    at: o.at,
    value: o.value,
    ...(o.heldSince !== undefined && { heldSince: o.heldSince }),
  };
}
