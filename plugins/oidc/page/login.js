// The hosted login page's actions over Aerie's JSON routes on the same origin (no inline script:
// the page's Content-Security-Policy allows only this file). See docs/api/signin.md "Hosted login".
(function () {
  'use strict';
  var emailForm = document.getElementById('email-form');
  if (!emailForm) return;
  var codeForm = document.getElementById('code-form');
  var result = document.getElementById('result');
  var base = '/login/' + encodeURIComponent(emailForm.getAttribute('data-application'));
  var email = '';

  function post(path, body) {
    return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' })
      .then(function (res) { return res.json().catch(function () { return {}; }).then(function (data) { return { status: res.status, data: data }; }); });
  }
  function say(state, text) {
    result.setAttribute('data-state', state);
    result.textContent = text;
  }

  emailForm.addEventListener('submit', function (event) {
    event.preventDefault();
    email = document.getElementById('email').value.trim();
    post('/email-code', { email: email }).then(function (res) {
      if (res.status !== 200) return say('error', res.data.message || 'Something went wrong. Try again.');
      emailForm.hidden = true;
      codeForm.hidden = false;
      say('sent', '');
      document.getElementById('code').focus();
    });
  });
  codeForm.addEventListener('submit', function (event) {
    event.preventDefault();
    post('/email-code/verify', { email: email, code: document.getElementById('code').value.trim() }).then(function (res) {
      if (res.status !== 200) return say('error', res.data.message || 'Something went wrong. Try again.');
      say('signed-in', 'Signed in. Taking you back…');
      window.location.assign(res.data.redirectTo);
    });
  });
  document.getElementById('other-address').addEventListener('click', function () {
    codeForm.hidden = true;
    emailForm.hidden = false;
    say('', '');
  });
})();
