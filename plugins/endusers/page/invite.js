// The end-user invite page: spends the link's token with POST /api/enduser/verify-invite when the
// person clicks (never on load, so a mail scanner following the link spends nothing). No inline
// script: the page's Content-Security-Policy allows only this file. See docs/api/endusers.md.
(function () {
  'use strict';
  var button = document.getElementById('confirm');
  var result = document.getElementById('result');
  var token = new URLSearchParams(window.location.search).get('token') || '';
  if (!token) {
    button.hidden = true;
    result.textContent = 'This link has no invite token. Open the link from your invitation mail.';
    return;
  }
  button.addEventListener('click', function () {
    button.disabled = true;
    fetch('/api/enduser/verify-invite', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: token }), credentials: 'omit',
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (res.ok) {
          button.hidden = true;
          result.setAttribute('data-state', 'verified');
          result.textContent = 'Thank you: ' + data.email + ' is confirmed. You can close this page and sign in.';
        } else {
          button.disabled = false;
          result.setAttribute('data-state', 'error');
          result.textContent = data.message || 'Something went wrong. Try again.';
        }
      });
    });
  });
})();
