/**
 * One request that answers a screen's first read of all its parts: each part takes its share of it
 * the first time it loads, and reads on its own every time after (a reload, a message's change).
 * The request starts when the first part asks.
 */
export class FirstRead<S> {
  private read: Promise<S> | null = null;
  private readonly taken = new Set<string>();

  constructor(private readonly start: (() => Promise<S>) | null) {}

  load<T>(part: string, pick: (screen: S) => NoInfer<T>, own: () => Promise<T>): Promise<T> {
    if (!this.start || this.taken.has(part)) return own();
    this.taken.add(part);
    this.read ??= this.start();
    return this.read.then(pick);
  }
}
