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
