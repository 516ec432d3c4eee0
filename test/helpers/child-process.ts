import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 now, for a server that must be started on a known port. Picked below
 * Linux's ephemeral range (32768–60999), where servers listening on port 0 get theirs: a port the
 * kernel handed out could be taken by such a server between this check and the caller's listen,
 * and then the caller's requests would reach that other server (a started process's `/healthz`
 * answered by another test's Aerie).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
    if (attempt >= 50) throw new Error('no free port found in 20000–31999');
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A process started with `npm start`, and what it printed. */
export interface StartedProcess {
  child: ChildProcess;
  output: () => string;
  /**
   * Signals the whole process group: `npm start` runs Aerie as its child, so signalling npm alone
   * (`child.kill('SIGKILL')`) would leave Aerie running. Resolves when npm has exited.
   */
  kill: (signal: NodeJS.Signals) => Promise<void>;
  /** Sends SIGTERM and resolves with how the process ended. */
  stop: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `npm start` in `cwd` with `env` and waits until `GET /healthz` answers on `port`.
 * @throws Error with the process output when it exits or is not up within `timeoutMs`.
 */
export async function startAerieProcess(cwd: string, env: Record<string, string>, port: number, timeoutMs = 60_000): Promise<StartedProcess> {
  const child = spawn('npm', ['start', '--silent'], { cwd, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`aerie exited (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`aerie did not start within ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    output: () => out,
    kill: async (signal) => {
      signalGroup(child, signal);
      await exited;
    },
    stop: async () => {
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 15_000);
      const ended = await exited;
      clearTimeout(timer);
      return ended;
    },
  };
}

/** Signals `child`'s process group (it was spawned detached, as its leader); ignores a group already gone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* already exited */
  }
}
