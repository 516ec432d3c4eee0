/** A configuration or plugin problem that stops boot; `message` is one line naming plugin and reason. */
export class BootError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BootError';
  }
}
