/**
 * CPU time of processes from Linux's /proc, for benches that compare CPU per operation (less
 * disturbed by the machine's other work than rates). Elsewhere every figure is 0.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();

/**
 * A process's parent and CPU time in µs (user + system, in clock ticks of 10 ms on most Linux
 * machines), with `childrenUs` the CPU of its children that have exited and been waited for.
 * Undefined elsewhere or once it is gone.
 */
export function procStat(pid: number): { ppid: number; us: number; childrenUs: number } | undefined {
  try {
    // Fields after the command name (which may hold spaces): state ppid … utime(14) stime(15) cutime(16) cstime(17).
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const tick = 1e6 / CLOCK_TICKS;
    return { ppid: Number(f[1]), us: (Number(f[11]) + Number(f[12])) * tick, childrenUs: (Number(f[13]) + Number(f[14])) * tick };
  } catch {
    return undefined;
  }
}

/**
 * CPU time (µs) of a PostgreSQL server: the postmaster, its live children (backends, writers) and
 * the children that have exited (closed connections).
 */
export function serverCpuMicros(postmaster: number): number {
  const own = procStat(postmaster);
  let us = own ? own.us + own.childrenUs : 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat?.ppid === postmaster) us += stat.us;
  }
  return us;
}

/** The postmaster of the server a backend runs in (the backend's parent), from its `pg_backend_pid()`. */
export function postmasterOf(backendPid: number): number {
  const stat = procStat(backendPid);
  if (!stat) throw new Error(`no /proc entry for backend ${backendPid}: is the server on this machine?`);
  return stat.ppid;
}
