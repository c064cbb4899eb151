import { compare } from './rule-conditions.js';
import type { AlertRule, RuleOp } from './rule-types.js';

/** Rules of one comparison, ordered so that the ones whose condition holds for a value are a prefix. */
interface Ordered {
  op: RuleOp;
  /** Positions in the field's rule list. */
  positions: number[];
  thresholds: number[];
}

/**
 * Which of one field's rules need a look at a value (issue 35: 100 rules must cost ingest less than 10 %). A rule
 * whose condition does not hold and which has nothing open or pending for the thing changes nothing, and that is
 * almost every rule for almost every message; so instead of every rule, a message visits only those whose condition
 * holds (found by binary search among the thresholds of each comparison) and those the caller names as active for
 * the thing. The positions come back in the field's rule order, the order the evaluator decides in.
 */
export class RuleThresholdIndex {
  private readonly ordered: Ordered[] = [];
  /** `eq`: the rules of each threshold. */
  private readonly equal = new Map<number, number[]>();
  /** `ne`: holds for every value but one, so always visited. */
  private readonly notEqual: number[] = [];
  private readonly positionOf = new Map<string, number>();

  constructor(rules: readonly Pick<AlertRule, 'id' | 'op' | 'threshold'>[]) {
    const byOp = new Map<RuleOp, number[]>();
    rules.forEach((rule, position) => {
      this.positionOf.set(rule.id, position);
      if (rule.op === 'eq') this.equal.set(rule.threshold, [...(this.equal.get(rule.threshold) ?? []), position]);
      else if (rule.op === 'ne') this.notEqual.push(position);
      else byOp.set(rule.op, [...(byOp.get(rule.op) ?? []), position]);
    });
    for (const [op, positions] of byOp) {
      // Above a threshold: the lowest thresholds hold first; below one: the highest.
      const ascending = op === 'gt' || op === 'gte';
      positions.sort((a, b) => (ascending ? rules[a]!.threshold - rules[b]!.threshold : rules[b]!.threshold - rules[a]!.threshold));
      this.ordered.push({ op, positions, thresholds: positions.map((p) => rules[p]!.threshold) });
    }
  }

  /**
   * The positions of the rules to look at for `value`: those whose condition holds, and those of `active` (rule ids
   * with something open or pending for the thing; ids of other fields' rules are ignored). Ascending, each once.
   */
  candidates(value: number, ...active: (Iterable<string> | undefined)[]): number[] {
    const found: number[] = [];
    for (const { op, positions, thresholds } of this.ordered) {
      const count = holdingPrefix(thresholds, op, value);
      for (let i = 0; i < count; i++) found.push(positions[i]!);
    }
    const equal = this.equal.get(value);
    if (equal) found.push(...equal);
    found.push(...this.notEqual);
    for (const ids of active) {
      if (!ids) continue;
      for (const id of ids) {
        const position = this.positionOf.get(id);
        if (position !== undefined) found.push(position);
      }
    }
    if (found.length < 2) return found;
    found.sort((a, b) => a - b);
    let kept = 1;
    for (let i = 1; i < found.length; i++) if (found[i] !== found[kept - 1]) found[kept++] = found[i]!;
    found.length = kept;
    return found;
  }
}

/** How many of `thresholds` (ordered so the holding ones come first) hold for `value`: a binary search. */
function holdingPrefix(thresholds: readonly number[], op: RuleOp, value: number): number {
  let low = 0;
  let high = thresholds.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(value, op, thresholds[middle]!)) low = middle + 1;
    else high = middle;
  }
  return low;
}
