/** A (rule, thing)'s state as the evaluator knows it: an open period, or the arrival since which the condition held. */
export interface RuleThingEntry {
  open: boolean;
  pendingSince: number | null;
}

/**
 * Which things of each rule have an open period and which are waiting out `for_s`, by rule and then by TUID.
 * Lookups take the rule's id and the message's TUID as they are (strings whose hash V8 keeps) rather than a key
 * built for each check; `rulesOf` gives a thing's rules with an entry, which the evaluator visits beside the rules
 * whose condition holds (rule-threshold-index.ts).
 */
export class RuleThingState {
  private readonly byRule = new Map<string, Map<string, RuleThingEntry>>();
  /** The same keys by TUID: which rules a thing has an entry for (the evaluator visits those beside holding ones). */
  private readonly byThing = new Map<string, Set<string>>();

  /** `keepsIdle`: an entry neither open nor pending is kept (a batch's decisions over the state it overlays). */
  constructor(private readonly keepsIdle = false) {}

  get(ruleId: string, tuid: string): RuleThingEntry | undefined {
    return this.byRule.get(ruleId)?.get(tuid);
  }

  setOpen(ruleId: string, tuid: string, open: boolean): void {
    // An opened period ends the wait of `for_s` (the store deletes the pending state with the opening).
    this.put(ruleId, tuid, { open, pendingSince: open ? null : (this.get(ruleId, tuid)?.pendingSince ?? null) });
  }

  setPending(ruleId: string, tuid: string, pendingSince: number | null): void {
    this.put(ruleId, tuid, { open: this.get(ruleId, tuid)?.open ?? false, pendingSince });
  }

  /** The ids of the rules with an entry for `tuid` (open or pending; with `keepsIdle`, any decided). */
  rulesOf(tuid: string): ReadonlySet<string> | undefined {
    return this.byThing.get(tuid);
  }

  clear(): void {
    this.byRule.clear();
    this.byThing.clear();
  }

  private put(ruleId: string, tuid: string, entry: RuleThingEntry): void {
    let things = this.byRule.get(ruleId);
    if (!this.keepsIdle && !entry.open && entry.pendingSince === null) {
      things?.delete(tuid);
      if (things?.size === 0) this.byRule.delete(ruleId);
      const rules = this.byThing.get(tuid);
      rules?.delete(ruleId);
      if (rules?.size === 0) this.byThing.delete(tuid);
      return;
    }
    if (!things) this.byRule.set(ruleId, (things = new Map()));
    things.set(tuid, entry);
    let rules = this.byThing.get(tuid);
    if (!rules) this.byThing.set(tuid, (rules = new Set()));
    rules.add(ruleId);
  }
}
