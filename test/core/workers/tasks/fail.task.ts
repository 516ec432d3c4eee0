// Test task for core.workers: always throws a RangeError naming its input.
export default async function fail(input: { why: string }): Promise<never> {
  await Promise.resolve();
  throw new RangeError(`refused: ${input.why}`);
}
