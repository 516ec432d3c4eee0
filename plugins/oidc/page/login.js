// The hosted login page's actions over Aerie's JSON routes on the same origin (no inline script:
// the page's Content-Security-Policy allows only this file and webauthn.js, @simplewebauthn/browser).
// See docs/api/signin.md "Hosted login".
(function () {
  'use strict';
  var methods = document.getElementById('methods');
  if (!methods) return;
  var base = '/login/' + encodeURIComponent(methods.getAttribute('data-application'));
  var passkeys = methods.getAttribute('data-passkey') === 'yes' && window.PublicKeyCredential && window.SimpleWebAuthnBrowser;
  var webauthn = window.SimpleWebAuthnBrowser;
  var emailForm = document.getElementById('email-form');
  var codeForm = document.getElementById('code-form');
  var offer = document.getElementById('passkey-offer');
  var result = document.getElementById('result');
  var email = '';

  function post(path, body) {
    return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}), credentials: 'same-origin' })
      .then(function (res) { return res.json().catch(function () { return {}; }).then(function (data) { return { status: res.status, data: data }; }); });
  }
  function say(state, text) {
    result.setAttribute('data-state', state);
    result.textContent = text;
  }
  function failed(res) {
    say('error', (res.data && res.data.message) || 'Something went wrong. Try again.');
  }
  function go(to) {
    say('signed-in', 'Signed in. Taking you back…');
    window.location.assign(to);
  }

  var passkeyButton = document.getElementById('passkey-signin');
  if (passkeyButton) {
    if (!passkeys) passkeyButton.hidden = true;
    passkeyButton.addEventListener('click', function () {
      post('/passkey/options').then(function (res) {
        if (res.status !== 200) return failed(res);
        return webauthn.startAuthentication({ optionsJSON: res.data.options }).then(function (response) {
          return post('/passkey/verify', { response: response }).then(function (done) {
            if (done.status !== 200) return failed(done);
            go(done.data.redirectTo);
          });
        }, function () { say('error', 'No passkey was used. Try again, or sign in with an emailed code.'); });
      });
    });
  }

  if (emailForm) {
    emailForm.addEventListener('submit', function (event) {
      event.preventDefault();
      email = document.getElementById('email').value.trim();
      post('/email-code', { email: email }).then(function (res) {
        if (res.status !== 200) return failed(res);
        emailForm.hidden = true;
        codeForm.hidden = false;
        say('sent', '');
        document.getElementById('code').focus();
      });
    });
    codeForm.addEventListener('submit', function (event) {
      event.preventDefault();
      post('/email-code/verify', { email: email, code: document.getElementById('code').value.trim() }).then(function (res) {
        if (res.status !== 200) return failed(res);
        if (!passkeys) return go(res.data.redirectTo);
        // Signed in: offer a passkey for next time before going back.
        methods.hidden = true;
        offer.hidden = false;
        say('offer', '');
        document.getElementById('skip-passkey').addEventListener('click', function () { go(res.data.redirectTo); });
        document.getElementById('add-passkey').addEventListener('click', function () {
          post('/passkey/register/options').then(function (opts) {
            if (opts.status !== 200) return go(res.data.redirectTo);
            return webauthn.startRegistration({ optionsJSON: opts.data.options }).then(function (response) {
              return post('/passkey/register/verify', { response: response }).then(function (done) {
                go(done.status === 200 ? done.data.redirectTo : res.data.redirectTo);
              });
            }, function () { go(res.data.redirectTo); });
          });
        });
      });
    });
    document.getElementById('other-address').addEventListener('click', function () {
      codeForm.hidden = true;
      emailForm.hidden = false;
      say('', '');
    });
  }
})();
