/** Injectable time source, so expiry and retention are tested without sleeping. */
export interface Clock {
  /** Current instant. */
  now(): Date;
}

/** Wall-clock time. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. @example const c = new ManualClock(); c.advance(600); */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date = new Date()) {
    this.t = start.getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  /** Moves time forward by `seconds`. */
  advance(seconds: number): void {
    this.t += seconds * 1000;
  }
}
