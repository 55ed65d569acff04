// The portal's passkey ceremonies, served after @simplewebauthn/browser's bundle as the one
// script /assets/mfa.js, only on the pages that run a ceremony (CSP script-src 'self'). A
// [data-passkey] box names its ceremony (register or authenticate), where its JSON routes are,
// the page's CSRF token and where to go next. Everything else on these pages works without it.
(function () {
  'use strict';
  var webauthn = window.SimpleWebAuthnBrowser;
  var box = document.querySelector('[data-passkey]');
  var framed = window.self !== window.top;

  function show(element, text) {
    if (!element) return;
    if (text !== undefined) element.textContent = text;
    element.hidden = false;
  }

  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': box.dataset.csrf },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (json) {
        return { status: response.status, body: json };
      });
    });
  }

  // The page a new window opened for the frame: tell the frame the factor is presented, then close.
  if (document.querySelector('[data-mfa-done]') && window.opener) {
    try {
      window.opener.postMessage({ erx: 'mfa-done' }, window.location.origin);
      window.close();
    } catch (ignored) {
      // The opener went away: the page itself says to return to the clinical software.
    }
  }

  if (!box) return;
  var button = box.querySelector('[data-passkey-start]');
  var error = box.querySelector('[data-passkey-error]');
  var fallback = box.querySelector('[data-passkey-fallback]');

  // The new window (fallback) presented the factor for this session: carry on in the frame.
  window.addEventListener('message', function (event) {
    if (event.origin === window.location.origin && event.data && event.data.erx === 'mfa-done') window.location.assign(box.dataset.next);
  });

  if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
    show(error, 'This browser cannot use passkeys here. Use your authenticator app code instead.');
    show(fallback);
    return;
  }
  show(button);
  button.addEventListener('click', function () {
    var register = box.dataset.passkey === 'register';
    var nameField = box.querySelector('input[name="name"]');
    error.hidden = true;
    button.disabled = true;
    post(box.dataset.base + '/options', {})
      .then(function (options) {
        if (options.status !== 200) throw new Error(options.body.detail || 'The passkey could not be started.');
        return register ? webauthn.startRegistration({ optionsJSON: options.body }) : webauthn.startAuthentication({ optionsJSON: options.body });
      })
      .then(function (answer) {
        return post(box.dataset.base + '/verify', { response: answer, name: nameField ? nameField.value : undefined, step_up: box.dataset.stepUp === '1', next: box.dataset.next });
      })
      .then(function (result) {
        if (result.status === 200) return window.location.assign(result.body.next);
        throw new Error(result.body.detail || 'The passkey was refused.');
      })
      .catch(function (failure) {
        button.disabled = false;
        var refused = failure && (failure.name === 'NotAllowedError' || failure.name === 'SecurityError');
        if (refused && framed) {
          show(error, 'The passkey did not work inside your clinical software\'s window: it may not allow passkeys in its frame. Use your authenticator app code, or open the check in a new window.');
          show(fallback);
        } else if (refused) {
          show(error, 'The passkey was cancelled or not allowed. Try again, or use another way below.');
        } else {
          show(error, failure && failure.message ? failure.message : 'The passkey did not work. Try again, or use another way below.');
        }
      });
  });
})();
