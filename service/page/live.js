// Saves made elsewhere, as they happen: the service's event stream
// (/api/v1/events), one per browser however many tabs show the page.
//
// A browser keeps at most six connections to one host, and an event stream
// holds one for as long as it is open: six tabs, each with a stream of its
// own, left no connection for a save. So the tabs that follow the same
// workspace elect one of them (a Web Lock, released when that tab closes)
// to hold the stream; it passes each event to the others over a
// BroadcastChannel. The stream is read with fetch (it carries the session
// header, which EventSource cannot send).

import { API, query } from './api.js';
import { sessionHeaders } from './session.js';

const CHANNEL = 'holdfast-events';
const RETRY_MS = 3000;

// Splits a server-sent events body into {name, data} events.
function eventParser(onEvent) {
  let pending = '';
  return (text) => {
    pending += text.replace(/\r\n/g, '\n');
    let end;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      let name = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        if (line.startsWith('event:')) name = line.slice(6).trim();
        if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent(name, data.join('\n'));
    }
  };
}

const pause = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => {
    clearTimeout(timer);
    resolve();
  });
});

// Follows the settings of `workspace` ('' for none). onEvent(name, data)
// for each event; onLive(live, text) when the connection comes or goes.
// Returns a function that stops following.
export function followEvents(workspace, onEvent, onLive) {
  const stop = new AbortController();
  const channel = new BroadcastChannel(CHANNEL);
  let leader = false;
  let live = false;
  let liveText = '';

  const setLive = (value, text) => {
    live = value;
    liveText = text;
    onLive(value, text);
    if (leader) channel.postMessage({ type: 'live', workspace, live: value, text });
  };

  channel.addEventListener('message', (event) => {
    const message = event.data || {};
    if (message.workspace !== workspace) return;
    if (message.type === 'event' && !leader) onEvent(message.name, message.data);
    if (message.type === 'live' && !leader) onLive(message.live, `${message.text} (through another tab of this page)`);
    if (message.type === 'who-is-live' && leader) channel.postMessage({ type: 'live', workspace, live, text: liveText });
  });

  async function holdStream() {
    leader = true;
    const deliver = (name, data) => {
      onEvent(name, data);
      channel.postMessage({ type: 'event', workspace, name, data });
    };
    while (!stop.signal.aborted) {
      try {
        const response = await fetch(`${API}/events${query({ workspace })}`, {
          headers: sessionHeaders(), credentials: 'omit', cache: 'no-store', signal: stop.signal,
        });
        if (response.status !== 200) {
          let message = `the service answered ${response.status}`;
          try {
            message = (await response.json()).message || message;
          } catch { /* not JSON */ }
          setLive(false, `Not live: ${message}; the page still works, and retries.`);
        } else {
          setLive(true, 'Live: saves made elsewhere appear here.');
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          const parse = eventParser(deliver);
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            parse(value);
          }
          setLive(false, 'Not live: the connection to holdfast serve was lost; retrying. Reload the page if the service was restarted (it has a new link).');
        }
      } catch {
        if (stop.signal.aborted) break;
        setLive(false, 'Not live: holdfast serve cannot be reached; retrying.');
      }
      await pause(RETRY_MS, stop.signal);
    }
  }

  // One tab per workspace holds the stream; the others wait for the lock
  // (and take over when that tab closes) and hear the events meanwhile.
  navigator.locks.request(`holdfast-events ${workspace}`, { signal: stop.signal }, holdStream)
    .catch(() => { /* stopped while waiting */ });
  channel.postMessage({ type: 'who-is-live', workspace });

  return () => {
    stop.abort();
    channel.close();
  };
}
