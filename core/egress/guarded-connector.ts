import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { buildConnector } from 'undici';
import { judgeAddress } from './address-policy.ts';
import { EgressError } from './egress.types.ts';

/** Resolves a host name to every address it has (the kernel uses the system resolver). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Resolves `hostname` once and answers the address to connect to, after checking every address it
 * resolved to (one refused address refuses the host: a name that mixes public and private answers is
 * a rebinding attempt). IP literals are checked as they are. The refusal says only that the address
 * is refused, never what it resolved to or why. @throws EgressError (`blocked`, `dns`)
 */
export async function resolveChecked(hostname: string, resolve: Resolver, allowLoopback: boolean): Promise<string> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = await resolve(bare);
    } catch {
      throw new EgressError('dns', `${bare} does not resolve`);
    }
    if (addresses.length === 0) throw new EgressError('dns', `${bare} does not resolve`);
  }
  for (const address of addresses) {
    // Never how a name resolves (loopback, private, metadata): the answer would map the operator's network.
    const verdict = judgeAddress(address, allowLoopback);
    if (!verdict.allowed) throw new EgressError('blocked', `the address of ${bare} is refused`, verdict.reason);
  }
  return addresses[0]!;
}

/**
 * An undici connector that checks the address at connect time and connects to exactly that address
 * (no second resolution a DNS rebinding could answer differently). TLS still verifies the
 * certificate against the host name (SNI from the URL's host).
 */
export function guardedConnector(options: { resolve: Resolver; allowLoopback: boolean; ca?: string[] }): buildConnector.connector {
  // One secure context for every connection: passing `ca` instead would parse the whole CA list
  // again for each new connection.
  const connect = buildConnector({ ...(options.ca ? { secureContext: createSecureContext({ ca: options.ca }) } : {}), timeout: 10_000 });
  return (opts, callback) => {
    resolveChecked(opts.hostname, options.resolve, options.allowLoopback).then(
      (address) => connect({ ...opts, hostname: address }, callback),
      (error: Error) => callback(error, null),
    );
  };
}
