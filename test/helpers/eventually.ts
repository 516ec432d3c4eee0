/**
 * Polls `check` every `everyMs` until it holds (background work: jobs, followers).
 * @throws Error when it does not hold within `ms`
 */
export async function eventually(check: () => Promise<boolean>, ms = 20_000, everyMs = 100): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
