import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { coalescedReload } from '../coalesced-reload.js';
import type { DomainEventBus } from '../events.js';
import type { AlertChange } from '../alerts/alert-types.js';
import type { StoredMessage } from '../messages/message-types.js';
import { clears, holds, inScope, valueAt } from './rule-conditions.js';
import type { AlertRule } from './rule-types.js';

interface IndexedRule extends AlertRule {
  path: string[];
}

type Target = { rule: IndexedRule; tuid: string; organizationId: string; at: number; value: number };

/** One change a batch makes, decided in memory: only transitions reach the store, in the order the messages came. */
type RuleStep =
  | { kind: 'open'; target: Target & { heldSince?: number } }
  | { kind: 'close'; ruleId: string; tuid: string; at: number }
  | { kind: 'start'; target: Target }
  | { kind: 'cancel'; ruleId: string; tuid: string; organizationId: string };

const key = (ruleId: string, tuid: string) => `${ruleId}\n${tuid}`;

/**
 * Alert rules in the alert engine (SPEC section 13). Keeps in memory the enabled rules of every organization by
 * message id (reloaded when a rule changes here or on another instance, `alertRulesChanged`), which (rule, thing)
 * have an open period (from `alertChanged`, relayed) and which are waiting out `for_s` (`alertRulePendingChanged`,
 * relayed), so a batch costs one map lookup per message and a query only where something changes. The store's
 * state is the truth: the engine's periodic run refreshes this picture from it and opens what `for_s` made due.
 */
export class RuleEvaluator {
  private rules = new Map<string, IndexedRule[]>();
  private readonly open = new Set<string>();
  private readonly pending = new Map<string, number>();
  private stops: (() => void)[] = [];

  constructor(private readonly deps: { store: Store; clock: Clock; events: DomainEventBus }) {}

  async start(): Promise<void> {
    this.stops = [
      this.deps.events.onAnyInstance('alertRulesChanged', () => void this.reload().catch(() => undefined)),
      this.deps.events.onAnyInstance('alertChanged', (event) => {
        if (!event.rule) return;
        // An opened period ends the wait of `for_s` (the store deleted the state with the opening).
        if (event.state === 'opened') {
          this.open.add(key(event.rule.ruleId, event.tuid));
          this.pending.delete(key(event.rule.ruleId, event.tuid));
        } else this.open.delete(key(event.rule.ruleId, event.tuid));
      }),
      this.deps.events.onAnyInstance('alertRulePendingChanged', (event) => {
        if (event.pendingSince === null) this.pending.delete(key(event.ruleId, event.tuid));
        else this.pending.set(key(event.ruleId, event.tuid), event.pendingSince);
      }),
    ];
    await this.refresh();
  }

  stop(): void {
    for (const stop of this.stops) stop();
    this.stops = [];
  }

  /** Reads the enabled rules again; calls during a load run one more load after it. */
  readonly reload = coalescedReload(async () => {
    const byMessage = new Map<string, IndexedRule[]>();
    for (const rule of await this.deps.store.alertRules.listAllEnabled()) {
      const k = `${rule.organizationId}\n${rule.tsmId}`;
      byMessage.set(k, [...(byMessage.get(k) ?? []), { ...rule, path: rule.field.split('.') }]);
    }
    this.rules = byMessage;
  });

  /**
   * Replaces the picture of open periods and pending states with the store's, and reads the rules again (a rule
   * made by the CLI, whose change no instance heard).
   */
  async refresh(): Promise<void> {
    await this.reload();
    const state = await this.deps.store.ruleEvaluation.listState();
    this.open.clear();
    for (const k of state.open) this.open.add(key(k.ruleId, k.tuid));
    this.pending.clear();
    for (const p of state.pending) this.pending.set(key(p.ruleId, p.tuid), p.pendingSince);
  }

  /** The ingest side: evaluates each stored message against its organization's rules for its message id. */
  async evaluate(messages: readonly StoredMessage[]): Promise<AlertChange[]> {
    if (this.rules.size === 0) return [];
    const steps = this.plan(messages);
    const s = this.deps.store.ruleEvaluation;
    const changes: AlertChange[] = [];
    for (const step of steps) {
      if (step.kind === 'close') changes.push(...(await s.close([step])));
      else if (step.kind === 'open') {
        const opened = await s.open([openingOf(step.target)]);
        changes.push(...opened);
        // Not held as long as this instance believed (the store's state began later, or ended): wait from what it holds.
        if (opened.length === 0 && step.target.heldSince !== undefined) await this.startPending(step.target, changes);
      } else if (step.kind === 'cancel') {
        await s.cancelPending([step]);
        this.announcePending(step.organizationId, step.ruleId, step.tuid, null);
      } else await this.startPending(step.target, changes);
    }
    return changes;
  }

  /** Records a pending state; opens at once when the store's state shows the condition held `for_s` already. */
  private async startPending(p: Target, changes: AlertChange[]): Promise<void> {
    const s = this.deps.store.ruleEvaluation;
    const held = await s.startPending([{ ruleId: p.rule.id, organizationId: p.organizationId, tuid: p.tuid, at: p.at, value: p.value }]);
    const since = held.get(key(p.rule.id, p.tuid));
    if (since === undefined) return;
    this.announcePending(p.organizationId, p.rule.id, p.tuid, since);
    // Held long enough already (another instance started it earlier): open now.
    if (p.at - since >= p.rule.forS * 1000) changes.push(...(await s.open([openingOf({ ...p, heldSince: p.at - p.rule.forS * 1000 })])));
  }

  /** The periodic run (lease holder): opens the `for_s` periods whose time has come, closes orphans. */
  async evaluateScheduled(): Promise<AlertChange[]> {
    const s = this.deps.store.ruleEvaluation;
    const now = this.deps.clock.now();
    const changes = await s.closeOrphans(now);
    const byId = new Map([...this.rules.values()].flat().map((rule) => [rule.id, rule]));
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
    if (openings.length > 0) changes.push(...(await s.open(openings)));
    return changes;
  }

  private announcePending(organizationId: string, ruleId: string, tuid: string, pendingSince: number | null): void {
    this.deps.events.emit('alertRulePendingChanged', { organizationId, ruleId, tuid, pendingSince });
  }

  /** Decides, without I/O, what a batch changes, in message order; nothing in the common case. */
  private plan(messages: readonly StoredMessage[]): RuleStep[] {
    const steps: RuleStep[] = [];
    // What this batch has decided so far, ahead of the store: a thing's later message sees its earlier one's effect.
    const open = new Map<string, boolean>();
    const pending = new Map<string, number | null>();
    for (const message of messages) {
      const rules = this.rules.get(`${message.organizationId}\n${message.tsmId}`);
      if (!rules) continue;
      for (const rule of rules) {
        if (!inScope(rule, message.tuid, message.groupId)) continue;
        const value = valueAt(message.message, rule.path);
        if (value === undefined) continue;
        const k = key(rule.id, message.tuid);
        const at = message.receivedAt;
        const target = { rule, tuid: message.tuid, organizationId: message.organizationId, at, value };
        if (open.get(k) ?? this.open.has(k)) {
          if (!clears(rule, value)) continue;
          steps.push({ kind: 'close', ruleId: rule.id, tuid: message.tuid, at });
          open.set(k, false);
          continue;
        }
        const since = pending.has(k) ? pending.get(k)! : (this.pending.get(k) ?? null);
        if (!holds(rule, value)) {
          if (since === null) continue;
          steps.push({ kind: 'cancel', ruleId: rule.id, tuid: message.tuid, organizationId: message.organizationId });
          pending.set(k, null);
        } else if (rule.forS === 0) {
          steps.push({ kind: 'open', target });
          open.set(k, true);
        } else if (since === null) {
          steps.push({ kind: 'start', target });
          pending.set(k, at);
        } else if (at - since >= rule.forS * 1000) {
          steps.push({ kind: 'open', target: { ...target, heldSince: at - rule.forS * 1000 } });
          open.set(k, true);
          pending.set(k, null);
        }
      }
    }
    return steps;
  }
}

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
