/**
 * A binary min-heap: push and pop in O(log n), the least item read in O(1). `work.steps` counts the levels each
 * push and pop moves through (shared by several heaps when they are given the same object), so a caller can show
 * that its cost grows as log n, not as n, without timing anything.
 */
export class MinHeap<T> {
  private items: T[] = [];

  constructor(
    private readonly less: (a: T, b: T) => boolean,
    private readonly work: { steps: number } = { steps: 0 },
  ) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    let index = items.push(item) - 1;
    while (index > 0) {
      this.work.steps += 1;
      const parent = (index - 1) >> 1;
      if (!this.less(item, items[parent]!)) break;
      items[index] = items[parent]!;
      index = parent;
    }
    items[index] = item;
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) this.siftDown(last, 0);
    return top;
  }

  /** Keeps only the items `keep` accepts, rebuilt in O(n) (to shed entries a caller has marked stale). */
  retain(keep: (item: T) => boolean): void {
    this.items = this.items.filter(keep);
    for (let index = (this.items.length >> 1) - 1; index >= 0; index--) this.siftDown(this.items[index]!, index);
  }

  clear(): void {
    this.items = [];
  }

  private siftDown(item: T, from: number): void {
    const items = this.items;
    const length = items.length;
    let index = from;
    for (;;) {
      this.work.steps += 1;
      let child = 2 * index + 1;
      if (child >= length) break;
      if (child + 1 < length && this.less(items[child + 1]!, items[child]!)) child += 1;
      if (!this.less(items[child]!, item)) break;
      items[index] = items[child]!;
      index = child;
    }
    items[index] = item;
  }
}
