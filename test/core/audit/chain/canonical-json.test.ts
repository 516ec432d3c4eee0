import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../core/audit/chain/canonical-json.ts';

// RFC 8785 §3.2.2.3 / Appendix B number samples (IEEE-754 bit patterns → expected text).
const RFC_NUMBERS: [string, string][] = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

const fromBits = (hex: string) => Buffer.from(hex, 'hex').readDoubleBE(0);

describe('canonicalJson (RFC 8785)', () => {
  it.each(RFC_NUMBERS)('serializes the double %s as %s', (bits, text) => {
    expect(canonicalJson(fromBits(bits))).toBe(text);
  });

  it('matches the RFC 8785 §3.2.2 example byte for byte', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts members by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const input = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
    // values in the order they appear in the text (JSON.parse would re-order the key "1")
    expect([...canonicalJson(input).matchAll(/:"([^"]*)"/g)].map((m) => m[1])).toEqual([
      'Carriage Return', 'One', 'Control', 'Latin Small Letter O With Diaeresis', 'Euro Sign',
      'Emoji: Grinning Face', 'Hebrew Letter Dalet With Dagesh',
    ]);
    // integer-like keys sort as text, not numerically as JavaScript enumerates them
    expect(canonicalJson({ 10: 'a', 2: 'b', 1: 'c' })).toBe('{"1":"c","10":"a","2":"b"}');
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a BigInt', 1n],
    ['a lone high surrogate', '\ud800x'],
    ['a lone low surrogate in a key', { '\udc00': 1 }],
    ['undefined at top level', undefined],
  ])('rejects %s', (_, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('honours toJSON (dates become ISO strings)', () => {
    expect(canonicalJson({ d: new Date(0), c: [null, 1] })).toBe('{"c":[null,1],"d":"1970-01-01T00:00:00.000Z"}');
  });

});
