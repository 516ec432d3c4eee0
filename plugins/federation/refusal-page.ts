import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { PAGE_HEADERS, reply, type Reply } from '../../core/index.ts';

const TEMPLATE = readFileSync(fileURLToPath(new URL('./page/refused.eta', import.meta.url)), 'utf8');
const eta = new Eta({ autoEscape: true, autoTrim: false });

/** What to do, per refusal reason; reasons not listed (protocol failures) get {@link GENERIC}. */
const ADVICE: Record<string, { title: string; advice: string }> = {
  account_exists: {
    title: 'Link your Aerie account first',
    advice: 'An Aerie account already uses this address, and an organization’s identity provider never signs into an existing Aerie account on its own. '
      + 'Sign in to Aerie with that account (email code or passkey), accept the organization’s invitation if you have not, then link your identity provider '
      + 'from your account (POST /api/v1/users/me/idp-links, sealed with your passkey). After that, this sign-in works.',
  },
  not_a_member: { title: 'You are not a member of this organization', advice: 'Ask an administrator of the organization to add you, or to let its identity provider create members.' },
  membership_inactive: { title: 'Your membership is suspended or ended', advice: 'Ask an administrator of the organization to re-activate it.' },
  invitation_pending: {
    title: 'Accept your invitation first',
    advice: 'The organization invited your Aerie account. Open the invitation sent to your address and accept it with your own account, then link your identity provider from your account.',
  },
  platform_administrator: { title: 'Not available for this account', advice: 'A platform administrator never signs in through an organization’s identity provider. Sign in to Aerie directly.' },
  identity_linked_elsewhere: {
    title: 'This identity is linked to another account',
    advice: 'Your identity provider’s account is already linked to a different Aerie account. Remove that link from the other account first.',
  },
  link_not_member: { title: 'The link was not made', advice: 'Only an active member of the organization can link an identity provider to their Aerie account. Accept the organization’s invitation first.' },
  email_missing: { title: 'Your identity provider sent no email address', advice: 'Ask your administrator to release the email claim or attribute to Aerie.' },
  email_unverified: { title: 'Your identity provider does not vouch for your address', advice: 'Ask your administrator to send a verified email claim (email_verified, or xms_edov for Microsoft Entra ID).' },
};
const GENERIC = {
  title: 'The sign-in did not complete',
  advice: 'The answer from your identity provider could not be used (it may have expired or been used already). Start the sign-in again; if it keeps failing, give your administrator the reason below.',
};

/** Whether the request's `Accept` header prefers a page (a browser in the flow) over JSON. */
export function wantsPage(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  return /text\/html/i.test(value);
}

/**
 * The page a browser gets when the IdP flow is refused: what happened and what to do, with the
 * `reason` word; strict CSP, no script, nothing of the assertion or token.
 * @param status - 401 (the IdP answer failed a check) or 403 (Aerie's rules refused the person).
 */
export function refusalPage(status: number, reason: string, retryUrl: string): Reply {
  const text = ADVICE[reason] ?? GENERIC;
  const html = eta.renderString(TEMPLATE, { ...text, reason, retryUrl });
  return reply(status, html, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
}
