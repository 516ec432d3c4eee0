import cronParser from 'cron-parser';
import type { ScheduleTimes } from './jobs.types.ts';

/**
 * The cron expression of a schedule's times (UTC, five fields: minute hour day month weekday).
 * pg-boss runs a schedule at most once a minute, so a sixth (seconds) field is refused.
 * @throws Error naming the schedule for a malformed expression or an `everyMinutes` that does not
 *   divide the hour or the day
 * @see JobsService.schedule
 */
export function cronOf(name: string, times: ScheduleTimes): string {
  if (typeof times === 'string') {
    const cron = times.trim();
    if (cron.split(/\s+/).length !== 5) throw new Error(`schedule "${name}": "${times}" is not a five-field cron expression`);
    try {
      cronParser.parseExpression(cron, { tz: 'UTC' });
    } catch (err) {
      throw new Error(`schedule "${name}": "${times}" is not a cron expression (${(err as Error).message})`);
    }
    return cron;
  }
  const n = times.everyMinutes;
  if (Number.isInteger(n) && n >= 1 && n < 60 && 60 % n === 0) return n === 1 ? '* * * * *' : `*/${n} * * * *`;
  if (Number.isInteger(n) && n >= 60 && n % 60 === 0 && 24 % (n / 60) === 0) return n === 1440 ? '0 0 * * *' : `0 */${n / 60} * * *`;
  throw new Error(`schedule "${name}": everyMinutes must divide 60, or be a whole number of hours dividing 24 (got ${String(n)})`);
}

/** The latest time of `cron` (UTC) at or before `now`. */
export function previousTime(cron: string, now: Date): Date {
  // cron-parser's prev() is strictly before its start: start a millisecond later so a time exactly at `now` counts.
  return cronParser.parseExpression(cron, { tz: 'UTC', currentDate: new Date(now.getTime() + 1) }).prev().toDate();
}
