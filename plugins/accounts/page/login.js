/*
 * Aerie's dashboard door (/login): signs a person in to their Aerie account into a cookie session
 * (the CSRF token kept in sessionStorage, as /account/security does) and goes on to `returnUrl`,
 * which the server has already reduced to a same-origin path. `login_hint` and `prompt` as
 * docs/api/accounts.md "The dashboard door" says.
 */
(function () {
  'use strict';
  var CSRF_KEY = 'aerie.csrf';
  var $ = function (id) { return document.getElementById(id); };
  var door = $('door');
  var returnUrl = door.getAttribute('data-return-url');
  var hint = door.getAttribute('data-hint');
  var prompt = door.getAttribute('data-prompt');
  function status(text) { $('status').textContent = text; }
  async function api(method, path, body) {
    var headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    var csrf = sessionStorage.getItem(CSRF_KEY);
    if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
    var res = await fetch(path, { method: method, headers: headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
    var data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    return { status: res.status, body: data };
  }
  function forward() { window.location.assign(returnUrl); }
  function signedIn(res) {
    if (res.status !== 200) return status((res.body && res.body.message) || 'That did not work. Try again.');
    sessionStorage.setItem(CSRF_KEY, res.body.csrfToken);
    forward();
  }
  async function endHeld() {
    // Ends the held session where this tab holds its CSRF token; a new sign-in replaces the cookie anyway.
    if (sessionStorage.getItem(CSRF_KEY)) await api('POST', '/api/auth/logout');
    sessionStorage.removeItem(CSRF_KEY);
  }
  function showForm() {
    $('choose').hidden = true;
    $('sign-in').hidden = false;
    status(hint ? 'Sign in as ' + hint + '.' : 'Sign in.');
  }
  $('email-form').addEventListener('submit', async function (event) {
    event.preventDefault();
    var res = await api('POST', '/api/v1/users/registration/email', { email: $('email').value });
    if (res.status >= 400) return status((res.body && res.body.message) || 'The code could not be sent.');
    $('code-form').hidden = false;
    status('A code was mailed to ' + $('email').value + '.');
  });
  $('code-form').addEventListener('submit', async function (event) {
    event.preventDefault();
    signedIn(await api('POST', '/api/v1/users/verification/email', { email: $('email').value, code: $('code').value, session: 'cookie' }));
  });
  if ($('passkey-sign-in')) {
    $('passkey-sign-in').addEventListener('click', async function () {
      var issued = await api('POST', '/api/passkey/signin/options', {});
      if (issued.status !== 200) return status('Passkey sign-in is not available.');
      var response = await window.SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: issued.body.options });
      signedIn(await api('POST', '/api/passkey/signin', { response: response, session: 'cookie' }));
    });
  }
  $('continue-held').addEventListener('click', forward);
  $('use-hint').addEventListener('click', async function () { await endHeld(); showForm(); });

  (async function start() {
    var me = await api('GET', '/api/v1/users/me?_t=' + Date.now());
    // An organization session (opened by an organization's identity provider) is no Aerie sign-in: sign in here.
    var held = me.status === 200 && !me.body.organizationSession ? me.body.account.email : null;
    if (held && (!hint || held.toLowerCase() === hint.toLowerCase())) return forward();
    if (held && prompt === 'select_account') {
      $('held').textContent = held;
      $('held-again').textContent = held;
      $('choose').hidden = false;
      return status('Choose the account to continue with.');
    }
    if (held) await endHeld();
    showForm();
  })().catch(function (err) { status(err.message || String(err)); });
})();
