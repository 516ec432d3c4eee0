import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { Agent, fetch as undiciFetch } from 'undici';

/** A person the local IdP signs in. */
export interface IdpUser {
  email: string;
  email_verified?: boolean;
  /** Entra ID's "email domain owner verified" claim. */
  xms_edov?: boolean;
  name?: string;
}

/**
 * How the token endpoint's `id_token` is forged for refusal tests: its claims edited, then either
 * signed again with the IdP's own key (`resigned`: a genuine signature over wrong claims) or sent
 * with the original header and signature over the edited claims (`original`: a tampered token).
 */
export interface IdTokenForgery {
  claims: (claims: Record<string, unknown>) => Record<string, unknown>;
  signature: 'resigned' | 'original';
}

/**
 * An upstream OpenID provider for sign-in tests: `oidc-provider` on `https://localhost:{port}`
 * (throwaway certificate made by openssl; `caFile` to trust it), with one confidential client
 * (`aerie` / `idp-secret`). Interactions auto-approve as {@link LocalOidcProvider.user}; consent is
 * pre-granted. {@link LocalOidcProvider.browse} plays the browser from the authorization URL to the
 * redirect back.
 */
export class LocalOidcProvider {
  #user: IdpUser = { email: 'nobody@example.test', email_verified: true };
  /**
   * Who the next interaction signs in (`sub` is the email). Another email than the last one drops the
   * browser's session at the IdP, so the next sign-in is that person's own (`sub` included).
   */
  get user(): IdpUser {
    return this.#user;
  }

  set user(next: IdpUser) {
    if (next.email !== this.#user.email) this.jar.clear();
    this.#user = next;
  }

  /** While set, every ID token the token endpoint answers is forged this way. */
  forgeIdToken?: IdTokenForgery;
  private readonly jar = new Map<string, string>();
  private readonly agent: Agent;

  private constructor(
    private readonly server: Server, readonly caFile: string, private readonly dir: string, readonly port: number, private readonly signingKey: Record<string, unknown>,
  ) {
    this.agent = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } });
  }

  /** Generates the certificate (for {@link LocalOidcProvider.start}: Aerie must trust it before the IdP listens). */
  static certificate(): { dir: string; key: string; cert: string } {
    const dir = mkdtempSync(join(tmpdir(), 'aerie-idp-'));
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
    return { dir, key, cert };
  }

  static async start(tls: { dir: string; key: string; cert: string }, redirectUris: string[]): Promise<LocalOidcProvider> {
    let idp: LocalOidcProvider;
    let provider: Provider;
    const server = createServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
      if (req.url?.startsWith('/interaction/')) {
        void provider.interactionDetails(req, res)
          .then(() => provider.interactionFinished(req, res, { login: { accountId: idp.user.email } }, { mergeWithLastSubmission: false }))
          .catch((err: Error) => res.writeHead(500).end(err.message));
        return;
      }
      if (idp.forgeIdToken && req.url?.startsWith('/token')) idp.interceptIdToken(res, idp.forgeIdToken);
      provider.callback()(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    provider = new Provider(`https://localhost:${port}`, {
      clients: [{ client_id: 'aerie', client_secret: 'idp-secret', redirect_uris: redirectUris, response_types: ['code'], grant_types: ['authorization_code'] }],
      findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, ...idp.user }) }),
      claims: { openid: ['sub'], email: ['email', 'email_verified', 'xms_edov'], profile: ['name'] },
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
      jwks: { keys: [{ ...jwk, kid: 'test-key', use: 'sig', alg: 'RS256' } as never] },
      cookies: { keys: ['local-idp-cookie-key'] },
      ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    });
    idp = new LocalOidcProvider(server, tls.cert, tls.dir, port, { ...jwk, kid: 'test-key' });
    return idp;
  }

  /** Rewrites the `id_token` of the JSON body oidc-provider ends `res` with (it sends the body in one `end`). */
  private interceptIdToken(res: ServerResponse, forgery: IdTokenForgery): void {
    const end = res.end.bind(res) as (body?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      void (async () => {
        let body = chunk;
        const json = chunk === undefined ? undefined : JSON.parse(String(chunk)) as { id_token?: string };
        if (typeof json?.id_token === 'string') {
          json.id_token = await this.forge(json.id_token, forgery);
          body = JSON.stringify(json);
          res.setHeader('content-length', Buffer.byteLength(body as string));
        }
        end(body);
      })();
      return res;
    }) as typeof res.end;
  }

  private async forge(idToken: string, forgery: IdTokenForgery): Promise<string> {
    const claims = forgery.claims(decodeJwt(idToken) as Record<string, unknown>);
    if (forgery.signature === 'original') {
      const [header, , signature] = idToken.split('.');
      return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    }
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(await importJWK(this.signingKey, 'RS256'));
  }

  get issuer(): string {
    return `https://localhost:${this.port}`;
  }

  /**
   * Follows the IdP's redirects from `url` (with its cookies) until one leaves the IdP; answers that
   * URL (the client's redirect URI with `code` and `state`, or an error).
   */
  async browse(url: string): Promise<URL> {
    let next = new URL(url);
    for (let hops = 0; hops < 10; hops++) {
      if (next.origin !== this.issuer) return next;
      const res = await undiciFetch(next, { redirect: 'manual', dispatcher: this.agent, headers: { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        this.jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`the IdP answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
      next = new URL(location, next);
    }
    throw new Error('too many redirects at the IdP');
  }

  async close(): Promise<void> {
    await this.agent.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
