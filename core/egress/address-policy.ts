import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why an address may not be reached; recorded with a refused delivery or registration. */
export type BlockedReason =
  | 'loopback' | 'private' | 'link_local' | 'carrier_grade_nat' | 'unique_local' | 'multicast'
  | 'unspecified' | 'reserved' | 'metadata' | 'tunnel' | 'not_an_address';

/** The verdict on one IP address: reachable, or refused with a reason. */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: BlockedReason };

/** Cloud metadata services, named for the reason they are refused (their ranges are refused anyway). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

const V4_REASONS: Record<string, BlockedReason> = {
  loopback: 'loopback', private: 'private', linkLocal: 'link_local', carrierGradeNat: 'carrier_grade_nat',
  multicast: 'multicast', broadcast: 'multicast', unspecified: 'unspecified',
};
const V6_REASONS: Record<string, BlockedReason> = {
  loopback: 'loopback', linkLocal: 'link_local', uniqueLocal: 'unique_local', multicast: 'multicast',
  unspecified: 'unspecified', deprecatedSiteLocal: 'private', teredo: 'tunnel',
};

/**
 * The IPv4 address an IPv6 address carries, for every form that reaches an IPv4 host: mapped
 * (`::ffff:a.b.c.d`), translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64
 * (`64:ff9b::/96`, `64:ff9b:1::/48`) and 6to4 (`2002:AABB:CCDD::`). `null` for a native IPv6 address.
 */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  const tail = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return tail();
  if (range === '6to4') return new ipaddr.IPv4([p[1]! >> 8, p[1]! & 0xff, p[2]! >> 8, p[2]! & 0xff]);
  const firstSixZero = p.slice(0, 6).every((x) => x === 0);
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  if (firstSixZero && (p[6] !== 0 || p[7]! > 1)) return tail();
  return null;
}

/**
 * Decides whether Aerie may connect to `address` (an IP literal, IPv6 with or without brackets).
 * Only globally routable unicast addresses pass; IPv6 forms that embed an IPv4 address are judged by
 * that address. With `allowLoopback` (a test switch), loopback addresses pass too.
 */
export function judgeAddress(address: string, allowLoopback = false): AddressVerdict {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Strict literals only (node:net): legacy spellings like `127.1` are the URL parser's to normalise.
  if (isIP(bare) === 0) return { allowed: false, reason: 'not_an_address' };
  let ip = ipaddr.parse(bare);
  if (ip.kind() === 'ipv6') {
    const v4 = embeddedIPv4(ip as ipaddr.IPv6);
    if (v4) ip = v4;
  }
  if (METADATA.has(ip.toNormalizedString()) || METADATA.has(ip.toString())) return { allowed: false, reason: 'metadata' };
  const range = ip.range();
  if (range === 'unicast') return { allowed: true };
  if (range === 'loopback' && allowLoopback) return { allowed: true };
  const reasons = ip.kind() === 'ipv4' ? V4_REASONS : V6_REASONS;
  return { allowed: false, reason: reasons[range] ?? 'reserved' };
}
