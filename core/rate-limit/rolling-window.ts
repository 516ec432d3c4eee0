import ipaddr from 'ipaddr.js';

/**
 * Rolling-hour limits keyed by the requester's network, shared by the sign-in code limits of
 * accounts (Aerie accounts) and oidc (end users). @see docs/api/signin.md "Email code"
 */

/** The window of the code limits: one rolling hour (ms). */
export const HOUR_MS = 3_600_000;

/**
 * The network a request counts against: an IPv4 address as it is, an IPv6 address by its /64 (a
 * subscriber's usual allocation, so walking through one's own prefix gives no new budget). An
 * IPv4-mapped IPv6 address is its IPv4 address; anything unparsable is taken as given.
 * @param ip - the client address as the kernel reports it (`request.ip`).
 * @returns e.g. `203.0.113.7` or `2001:db8:1:2::/64`.
 */
export function requesterNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * Seconds from `nowMs` until `ok` holds for the rolling-hour counts of `windows` (each a list of
 * event times in ms; an event counts while it is younger than an hour). 0 when `ok` holds now.
 * Counts only fall as time passes without new events, so the answer is the first event's leaving
 * the hour after which `ok` holds.
 * @example secondsUntil(now, [mine, all], ([m, a]) => m < 5 && (a < 20 || m === 0))
 */
export function secondsUntil(nowMs: number, windows: number[][], ok: (counts: number[]) => boolean): number {
  const counts = (t: number) => windows.map((w) => w.filter((at) => at + HOUR_MS > t).length);
  if (ok(counts(nowMs))) return 0;
  const leaving = windows.flat().map((at) => at + HOUR_MS).filter((t) => t > nowMs).sort((a, b) => a - b);
  for (const t of leaving) if (ok(counts(t))) return (t - nowMs) / 1000;
  return HOUR_MS / 1000;
}
