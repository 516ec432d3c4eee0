// The invitation page's actions, over Aerie's JSON API on the same origin (no inline script: the
// page's Content-Security-Policy allows only this file). See docs/api/members.md "The invitation page".
(function () {
  'use strict';
  var form = document.getElementById('invitation');
  if (!form) return;
  var token = form.elements.token.value;
  var email = form.getAttribute('data-email');
  var result = document.getElementById('result');

  function post(path, body, bearer) {
    var headers = { 'content-type': 'application/json' };
    if (bearer) headers.authorization = 'Bearer ' + bearer;
    return fetch(path, { method: 'POST', headers: headers, body: JSON.stringify(body), credentials: 'omit' })
      .then(function (res) { return res.json().catch(function () { return {}; }).then(function (data) { return { status: res.status, data: data }; }); });
  }
  function finish(state, text) {
    form.hidden = true;
    result.setAttribute('data-state', state);
    result.textContent = text;
  }
  function fail(res) {
    result.setAttribute('data-state', 'error');
    result.textContent = (res.data && res.data.message) || 'Something went wrong. Try again.';
  }
  function joined(res) {
    var org = res.data.Organization ? res.data.Organization.name : 'the organization';
    finish('accepted', 'You joined ' + org + '. You can close this page or open your account at /account/security.');
  }

  var register = document.getElementById('accept-register');
  if (register) register.addEventListener('click', function () {
    var name = form.elements.displayName.value.trim();
    var body = { Token: token };
    if (name) body.DisplayName = name;
    post('/api/org/invitation/accept-with-register', body).then(function (res) {
      if (res.status === 201) joined(res); else fail(res);
    });
  });

  var sendCode = document.getElementById('send-code');
  if (sendCode) sendCode.addEventListener('click', function () {
    post('/api/v1/users/registration/email', { email: email }).then(function (res) {
      if (res.status !== 202) return fail(res);
      document.getElementById('code-label').hidden = false;
      document.getElementById('accept-signin').hidden = false;
      result.setAttribute('data-state', 'code-sent');
      result.textContent = 'We mailed a code to ' + email + '.';
    });
  });

  var acceptSignIn = document.getElementById('accept-signin');
  if (acceptSignIn) acceptSignIn.addEventListener('click', function () {
    post('/api/v1/users/verification/email', { email: email, code: form.elements.code.value.trim() }).then(function (res) {
      if (res.status !== 200) return fail(res);
      return post('/api/org/invitation/accept', { Token: token }, res.data.sessionToken).then(function (accepted) {
        if (accepted.status === 200) joined(accepted); else fail(accepted);
      });
    });
  });

  document.getElementById('decline').addEventListener('click', function () {
    post('/api/org/invitation/decline', { Token: token }).then(function (res) {
      if (res.status === 200) finish('declined', 'You declined the invitation.'); else fail(res);
    });
  });
})();
