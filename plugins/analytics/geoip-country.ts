import { createRequire } from 'node:module';

interface GeoIp {
  lookup(ip: string): { country?: string } | null;
}
let geoip: GeoIp | undefined;

/**
 * ISO 3166-1 alpha-2 country of an IP address from `geoip-country`'s offline database, or
 * undefined. The database is loaded on the first call — in the rollup task's worker thread, never
 * on the main thread.
 */
export function countryOf(ip: string): string | undefined {
  geoip ??= createRequire(import.meta.url)('geoip-country') as GeoIp;
  try {
    return geoip.lookup(ip)?.country || undefined;
  } catch {
    return undefined;
  }
}
