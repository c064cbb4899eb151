/** A (rule, thing)'s state as the evaluator knows it: an open period, or the arrival since which the condition held. */
export interface RuleThingEntry {
  open: boolean;
  pendingSince: number | null;
}

/**
 * Which things of each rule have an open period and which are waiting out `for_s`, by rule and then by TUID.
 * Every message is checked against every rule of its message id, so lookups take the rule's id and the message's
 * TUID as they are (strings whose hash V8 keeps) rather than a key built for each check; a rule with nothing open
 * or pending, the usual case, costs one lookup.
 */
export class RuleThingState {
  private readonly byRule = new Map<string, Map<string, RuleThingEntry>>();

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

  clear(): void {
    this.byRule.clear();
  }

  private put(ruleId: string, tuid: string, entry: RuleThingEntry): void {
    let things = this.byRule.get(ruleId);
    if (!this.keepsIdle && !entry.open && entry.pendingSince === null) {
      things?.delete(tuid);
      if (things?.size === 0) this.byRule.delete(ruleId);
      return;
    }
    if (!things) this.byRule.set(ruleId, (things = new Map()));
    things.set(tuid, entry);
  }
}
