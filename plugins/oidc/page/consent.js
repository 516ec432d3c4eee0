// The hosted login's consent page: posts the end user's answer (Allow or Deny) and follows the
// provider back to the application. See docs/api/signin.md "Consent".
(function () {
  'use strict';
  var section = document.getElementById('consent');
  if (!section) return;
  var key = section.getAttribute('data-application');
  var result = document.getElementById('result');
  function answer(decision) {
    fetch('/login/' + encodeURIComponent(key) + '/consent', {
      method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: decision }),
    }).then(function (r) {
      return r.json().then(function (data) {
        if (r.status !== 200) {
          result.setAttribute('data-state', 'error');
          result.textContent = data.message || 'Something went wrong. Go back to the application and start again.';
          return;
        }
        window.location.assign(data.redirectTo);
      });
    });
  }
  ['allow', 'deny'].forEach(function (id) {
    document.getElementById(id).addEventListener('click', function (event) {
      answer(event.currentTarget.getAttribute('data-decision'));
    });
  });
})();
