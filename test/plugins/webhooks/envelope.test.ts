import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { signedHeaders } from '../../../plugins/webhooks/envelope.ts';
import { newSecret } from '../../../plugins/webhooks/endpoints.service.ts';

describe('webhook signatures (Standard Webhooks)', () => {
  it("matches the specification's published test vector", () => {
    // standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts "sign function works".
    const headers = signedHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), '{"test": 2432232314}');
    expect(headers).toEqual({
      'content-type': 'application/json', 'user-agent': 'Aerie-Webhooks/1',
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('verifies with the library for its own secret only, and only for the exact body', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const body = JSON.stringify({ id: 'msg_1', type: 't', timestamp: new Date().toISOString(), data: {} });
    const headers = signedHeaders(secret, 'msg_1', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('"t"', '"u"'), headers)).toThrow();
    // A delivery signed more than 5 minutes ago is refused by the receiver's library.
    const old = signedHeaders(secret, 'msg_1', new Date(Date.now() - 6 * 60_000), body);
    expect(() => new Webhook(secret).verify(body, old)).toThrow();
  });
});

describe('envelope bodies', () => {
  it('serialises a record once and answers, per delivery id, exactly JSON.stringify of its envelope', async () => {
    const { envelopeBodies, envelopeOf } = await import('../../../plugins/webhooks/envelope.ts');
    const record = {
      id: '7f0c0000-0000-4000-8000-000000000001', orgId: '0b6e0000-0000-4000-8000-000000000002', seq: 42, eventType: 'org.x.y',
      occurredAt: '2026-11-25T09:30:00.000Z', sealedAt: '2026-11-25T09:30:00.120Z', actor: { type: 'account', id: 'a"b\\c' }, appGroupId: null,
      businessData: { name: 'Ünïcödé "quoted"', nested: { list: [1, 2.5, null, true] } }, payloadHash: 'a'.repeat(64), prevHash: 'b'.repeat(64), chainHash: 'c'.repeat(64),
    };
    const bodyFor = envelopeBodies(record as never);
    for (const id of ['msg_1', 'msg_"odd"']) {
      expect(bodyFor(id)).toBe(JSON.stringify(envelopeOf(id, record as never)));
      expect(JSON.parse(bodyFor(id)).id).toBe(id);
    }
  });
});
