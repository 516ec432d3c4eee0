/*
 * Aerie /account/security — a plain browser script over Aerie's JSON API.
 * Signs in with an email code or a passkey into a cookie session (HttpOnly cookie; the CSRF token
 * answered by the sign-in is kept in sessionStorage and sent as X-CSRF-Token on every write),
 * adds and removes passkeys, binds the personal seal and signs step-ups with @simplewebauthn/browser.
 */
(function () {
  'use strict';
  var webauthn = window.SimpleWebAuthnBrowser;
  var CSRF_KEY = 'aerie.csrf';
  var state = { csrf: sessionStorage.getItem(CSRF_KEY), email: null, lastAssertion: null, lastResult: null };
  var $ = function (id) { return document.getElementById(id); };

  function status(text, kind) {
    $('status').textContent = text;
    $('status').dataset.kind = kind || 'info';
  }

  async function api(method, path, body) {
    var headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && state.csrf) headers['x-csrf-token'] = state.csrf;
    var res = await fetch(path, { method: method, headers: headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
    var text = await res.text();
    var data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = text; }
    return { status: res.status, body: data };
  }

  function must(res, what) {
    if (res.status >= 400) throw new Error(what + ' failed: ' + res.status + ' ' + ((res.body && res.body.error) || ''));
    return res.body;
  }

  function signedIn(answer) {
    state.csrf = answer.csrfToken;
    sessionStorage.setItem(CSRF_KEY, answer.csrfToken);
  }

  function item(passkey) {
    var li = document.createElement('li');
    li.dataset.credentialId = passkey.credentialId;
    var code = document.createElement('code');
    code.textContent = passkey.credentialId + ' · ' + passkey.keyFingerprint + (passkey.personalSeal ? ' · personal seal' : '');
    li.appendChild(code);
    [['bind-seal', 'Use as personal seal'], ['remove-passkey', 'Remove']].forEach(function (b) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = b[0];
      button.textContent = b[1];
      li.appendChild(button);
    });
    return li;
  }

  async function refresh() {
    var me = await api('GET', '/api/v1/users/me?_t=' + Date.now());
    $('sign-in').hidden = me.status === 200;
    $('account').hidden = me.status !== 200;
    if (me.status !== 200) return status('Signed out. Sign in to manage your passkeys.');
    state.email = me.body.account.email;
    $('account-email').textContent = state.email;
    $('personal-seal').textContent = me.body.personalSeal ? me.body.personalSeal.credentialId : 'none';
    var list = must(await api('GET', '/api/passkey/list'), 'Listing passkeys');
    $('passkeys').replaceChildren.apply($('passkeys'), list.passkeys.map(item));
    status('Signed in.', 'ok');
  }

  async function addPasskey() {
    var issued = must(await api('POST', '/api/passkey/add/options', {}), 'Passkey options');
    var response = await webauthn.startRegistration({ optionsJSON: issued.options });
    var added = must(await api('POST', '/api/passkey/add', { response: response }), 'Adding the passkey');
    await refresh();
    status('Passkey added: ' + added.passkey.credentialId, 'ok');
    return added.passkey;
  }

  async function bindSeal(credentialId) {
    var bound = must(await api('POST', '/api/v1/seals', { credentialId: credentialId }), 'Binding the seal');
    await refresh();
    status('Personal seal bound: ' + bound.personalSeal.credentialId, 'ok');
    return bound.personalSeal;
  }

  async function stepUp(purpose, subject, action, field) {
    var issued = must(await api('POST', '/api/passkey/stepup/options', { purpose: purpose, subject: subject }), 'Step-up options');
    if (!issued.hasPasskey) throw new Error('Add a passkey first.');
    $('stepup-binding').textContent = JSON.stringify(issued.binding);
    state.lastAssertion = await webauthn.startAuthentication({ optionsJSON: issued.options });
    if (!action) return { assertion: state.lastAssertion };
    return send(action, field || 'stepUpAssertion', state.lastAssertion);
  }

  async function send(action, field, assertion) {
    var body = {};
    body[field] = assertion;
    var result = await api('POST', action, body);
    state.lastResult = result;
    $('stepup-result').textContent = result.status + ' ' + JSON.stringify(result.body);
    status(result.status < 400 ? 'The server accepted the seal.' : 'The server refused the seal: ' + (result.body && result.body.error), result.status < 400 ? 'ok' : 'error');
    return result;
  }

  function guard(fn) {
    return function (event) {
      if (event) event.preventDefault();
      return fn(event).catch(function (err) { status(err.message || String(err), 'error'); });
    };
  }

  $('email-form').addEventListener('submit', guard(async function () {
    must(await api('POST', '/api/v1/users/registration/email', { email: $('email').value }), 'Sending the code');
    $('code-form').hidden = false;
    status('A code was mailed to ' + $('email').value + '.');
  }));
  $('code-form').addEventListener('submit', guard(async function () {
    signedIn(must(await api('POST', '/api/v1/users/verification/email', { email: $('email').value, code: $('code').value, session: 'cookie' }), 'Signing in'));
    await refresh();
  }));
  $('passkey-sign-in').addEventListener('click', guard(async function () {
    var issued = must(await api('POST', '/api/passkey/signin/options', {}), 'Passkey options');
    var response = await webauthn.startAuthentication({ optionsJSON: issued.options });
    signedIn(must(await api('POST', '/api/passkey/signin', { response: response, session: 'cookie' }), 'Passkey sign-in'));
    await refresh();
  }));
  $('add-passkey').addEventListener('click', guard(addPasskey));
  $('passkeys').addEventListener('click', guard(async function (event) {
    var li = event.target.closest('li');
    if (!li) return;
    if (event.target.classList.contains('bind-seal')) await bindSeal(li.dataset.credentialId);
    if (event.target.classList.contains('remove-passkey')) {
      must(await api('DELETE', '/api/passkey/' + encodeURIComponent(li.dataset.credentialId)), 'Removing the passkey');
      await refresh();
    }
  }));
  $('stepup-form').addEventListener('submit', guard(function () {
    return stepUp($('stepup-purpose').value, $('stepup-subject').value, $('stepup-action').value, $('stepup-field').value);
  }));
  $('sign-out').addEventListener('click', guard(async function () {
    await api('POST', '/api/auth/logout');
    sessionStorage.removeItem(CSRF_KEY);
    state.csrf = null;
    await refresh();
  }));

  window.aerieSecurity = { api: api, refresh: refresh, addPasskey: addPasskey, bindSeal: bindSeal, stepUp: stepUp, send: send, state: state };
  refresh().catch(function (err) { status(err.message || String(err), 'error'); });
})();
