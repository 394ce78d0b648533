// The page's credential. Nothing the browser attaches by itself (a cookie)
// counts with holdfast serve: a cookie for 127.0.0.1 goes to every port of
// that address, so another local user's server would receive it. Instead:
//
// - holdfast serve prints http://127.0.0.1:PORT/#token=LINK. The fragment is
//   never sent anywhere by the browser; the page takes the link from it,
//   removes it from the address bar at once, and exchanges it (it works
//   once) for a session secret.
// - The secret is kept in sessionStorage (this origin, this tab: a reload
//   keeps it) and sent as "Authorization: Bearer SESSION".
// - Another tab of the page (opened without the link) asks the open ones
//   over a BroadcastChannel, which only this origin can join.

const KEY = 'holdfast.session';
const CHANNEL = 'holdfast-session';
const ASK_FOR = 3000; // ms an open tab has to answer a new one

let secret = null;

export function sessionHeaders() {
  return secret ? { Authorization: `Bearer ${secret}` } : {};
}

// Tabs that have a session give it to tabs of the page that ask.
function share() {
  const channel = new BroadcastChannel(CHANNEL);
  channel.addEventListener('message', (event) => {
    if (event.data && event.data.type === 'need-session' && secret) {
      channel.postMessage({ type: 'session', secret });
    }
  });
}

function askOpenTabs() {
  return new Promise((resolve) => {
    const channel = new BroadcastChannel(CHANNEL);
    const timer = setTimeout(() => {
      channel.close();
      resolve(null);
    }, ASK_FOR);
    channel.addEventListener('message', (event) => {
      if (event.data && event.data.type === 'session' && typeof event.data.secret === 'string') {
        clearTimeout(timer);
        channel.close();
        resolve(event.data.secret);
      }
    });
    channel.postMessage({ type: 'need-session' });
  });
}

async function exchange(link) {
  const response = await fetch('/api/v1/session', {
    method: 'POST',
    headers: { Authorization: `Bearer ${link}` },
    credentials: 'omit',
    cache: 'no-store',
  });
  let body = {};
  try {
    body = await response.json();
  } catch {
    body = { message: `holdfast serve answered ${response.status}` };
  }
  if (response.status === 201 && typeof body.session === 'string') return { session: body.session };
  return { message: body.message || `holdfast serve answered ${response.status}` };
}

// A link pasted into a tab that shows the page already: take it as at the
// start.
window.addEventListener('hashchange', () => {
  if (window.location.hash.startsWith('#token=')) window.location.reload();
});

// The session secret, or throws an Error saying what to do.
export async function obtainSession() {
  let refused = null;
  const fragment = window.location.hash;
  if (fragment.startsWith('#token=')) {
    // Out of the address bar (and what a bookmark or a screenshot would
    // keep) before anything else happens.
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    const result = await exchange(fragment.slice('#token='.length));
    if (result.session) {
      sessionStorage.setItem(KEY, result.session);
    } else {
      refused = result.message;
    }
  }
  secret = sessionStorage.getItem(KEY) || (await askOpenTabs());
  if (!secret) {
    throw new Error(refused ||
      'This page needs the link holdfast serve printed when it started (…/#token=…), or another open tab of this page. The link works once: to open the page again, restart holdfast serve.');
  }
  sessionStorage.setItem(KEY, secret);
  share();
  return secret;
}
