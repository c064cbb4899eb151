/** The current time, ticking every 15 s: "3 minutes ago" labels stay true without each view running a timer. */
class Now {
  ms = $state(Date.now());

  constructor() {
    setInterval(() => (this.ms = Date.now()), 15_000);
  }
}

export const now = new Now();
