import { describe, expect, it } from 'vitest';
import { judgeAddress } from '../../../core/egress/address-policy.ts';

describe('judgeAddress: only globally routable unicast passes', () => {
  const refused: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'], ['::1', 'loopback'], ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'], ['172.16.5.4', 'private'], ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link_local'], ['fe80::1', 'link_local'],
    ['100.64.0.1', 'carrier_grade_nat'], ['fc00::1', 'unique_local'], ['fd12:3456::1', 'unique_local'],
    ['224.0.0.1', 'multicast'], ['255.255.255.255', 'multicast'], ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
    ['192.0.2.10', 'reserved'], ['198.51.100.7', 'reserved'], ['203.0.113.9', 'reserved'], ['2001:db8::1', 'reserved'], ['240.0.0.1', 'reserved'],
    // Cloud metadata services.
    ['169.254.169.254', 'metadata'], ['100.100.100.200', 'metadata'], ['fd00:ec2::254', 'metadata'], ['192.0.0.192', 'metadata'],
    // IPv6 forms that reach an IPv4 host are judged by that host.
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['[::ffff:169.254.169.254]', 'metadata'],
    ['::127.0.0.1', 'loopback'], ['::7f00:1', 'loopback'], ['::ffff:0:10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'], ['64:ff9b::a9fe:a9fe', 'metadata'], ['64:ff9b:1::a00:1', 'private'],
    ['2002:7f00:1::', 'loopback'], ['2002:c0a8:101::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'tunnel'],
    ['localhost', 'not_an_address'], ['127.1', 'not_an_address'], ['', 'not_an_address'],
  ];
  it.each(refused)('%s is refused as %s', (address, reason) => {
    expect(judgeAddress(address)).toEqual({ allowed: false, reason });
  });

  it.each(['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.215.14', '64:ff9b::5db8:d70e', '2002:5db8:d70e::1'])('%s passes', (address) => {
    expect(judgeAddress(address)).toEqual({ allowed: true });
  });

  it('the loopback switch lets loopback through and nothing else', () => {
    expect(judgeAddress('127.0.0.1', true)).toEqual({ allowed: true });
    expect(judgeAddress('::1', true)).toEqual({ allowed: true });
    expect(judgeAddress('10.0.0.1', true)).toEqual({ allowed: false, reason: 'private' });
    expect(judgeAddress('169.254.169.254', true)).toEqual({ allowed: false, reason: 'metadata' });
  });
});
