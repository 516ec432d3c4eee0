// Sign-in with an Aerie account on the hosted login: reads what would be shared, asks for consent the
// first time, and connects with the Aerie session's cookie and CSRF token (kept in sessionStorage by
// Aerie's account pages). See docs/api/signin.md "Sign-in with an Aerie account".
(function () {
  'use strict';
  var section = document.getElementById('aerie');
  if (!section) return;
  var key = section.getAttribute('data-application');
  var result = document.getElementById('result');
  var csrf = sessionStorage.getItem('aerie.csrf');
  function say(state, text) {
    result.setAttribute('data-state', state);
    result.textContent = text;
  }
  fetch('/api/v1/aerie-account/apps/' + encodeURIComponent(key), { credentials: 'same-origin' }).then(function (res) {
    if (res.status === 401 || !csrf) {
      document.getElementById('signed-out').hidden = false;
      return;
    }
    return res.json().then(function (preview) {
      if (preview.consentRequired) document.getElementById('consent-text').hidden = false;
      var button = document.getElementById('continue');
      button.hidden = false;
      button.addEventListener('click', function () {
        fetch('/login/' + encodeURIComponent(key) + '/aerie/connect', {
          method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify({ consent: true }),
        }).then(function (r) {
          return r.json().then(function (data) {
            if (r.status !== 200) return say('error', data.message || 'Something went wrong. Try again.');
            say('signed-in', 'Signed in. Taking you back…');
            window.location.assign(data.redirectTo);
          });
        });
      });
    });
  });
})();
