// What the page shows and does not edit: the effective settings, the
// scope files, the effective sandbox, a scope's history, a conflict, the
// launch records. Every value goes in as text (dom.js). Each table cell
// carries its column's name (data-label), which a narrow screen shows
// beside the value when the table is laid out as a list (page.css).
import { $, el, fill, valueText } from './dom.js';
import { leaves, toDotted } from './model.js';

const td = (label, props, ...children) => el('td', { ...props, 'data-label': label }, ...children);
const th = (label, props, ...children) => el('th', { scope: 'row', ...props, 'data-label': label }, ...children);

export function diagnosticItem(d) {
  const where = d.line ? `${d.file}:${d.line}:${d.column}` : d.file;
  return el('li', { className: d.severity === 'error' ? 'error' : 'warning' },
    el('span', { className: 'where' }, where), ' ', `${d.severity}: `,
    d.key ? `at ${d.key}: ` : '', d.message);
}

export function renderSettings(settings) {
  const origins = settings.origins || {};
  const rows = settings.valid
    ? leaves(settings.effective || {}, true).filter(([path]) => path.length > 0).map(([path, value]) => {
      const key = toDotted(path);
      return el('tr', {}, th('Key', { className: 'key' }, key),
        td('Value', { className: 'value' }, valueText(value)),
        td('From scope', {}, origins[key] || 'built-in default'));
    })
    : [];
  fill($('effective-table').tBodies[0], rows);
  let summary;
  if (!settings.valid) {
    summary = 'A scope file is invalid, so nothing is in effect until it is fixed: a launch is refused. See the scope files below.';
  } else if (!rows.length) {
    summary = `No settings file sets a value: the built-in defaults apply (the effective sandbox below shows what they allow). Snapshot ${settings.digest}.`;
  } else {
    summary = `${rows.length} value${rows.length === 1 ? '' : 's'} set in the settings files; anything they leave unset takes its built-in default (the effective sandbox below includes those). Snapshot ${settings.digest}.`;
  }
  $('effective-summary').textContent = summary;
  fill($('warnings'), (settings.warnings || []).map(diagnosticItem));
  if (!(settings.warnings || []).length) fill($('warnings'), el('li', {}, 'none'));
  fill($('scopes-table').tBodies[0], settings.scopes.map((scope) => {
    const stateCell = td('State', {});
    if (!scope.exists) stateCell.append('no file');
    else if (scope.valid) stateCell.append('valid');
    else stateCell.append(el('strong', {}, 'invalid'));
    if (scope.diagnostics.length) stateCell.append(el('ul', { className: 'diagnostics' }, scope.diagnostics.map(diagnosticItem)));
    return el('tr', {}, th('Scope', {}, scope.scope), td('File', { className: 'path' }, scope.path),
      td('Revision', {}, scope.exists ? String(scope.revision) : '—'), stateCell);
  }));
}

const ACCESS_MEANS = {
  read: 'may read',
  write: 'may read and write',
  deny: 'cannot see',
};

const NETWORK_MEANS = {
  closed: 'closed: no network at all (an empty network namespace)',
  open: 'open: the host\'s network',
  'allow-list': 'allow-list: a network namespace of its own; the only way out is the launch\'s proxy, to the hosts listed (deny beats allow)',
};

// A policy's allow-list entries, allowed first: [{list, entry, port,
// private, origin}] (none unless the network is an allow-list).
export function networkRuleList(policy) {
  const rules = policy.networkRules;
  if (policy.network !== 'allow-list' || !rules) return [];
  return ['allow', 'deny'].flatMap((list) => (rules[list] || []).map((rule) => ({
    list, entry: rule.entry, port: rule.port, private: rule.private, origin: rule.origin || policy.networkOrigin,
  })));
}

// What one entry lets through (or keeps out).
export function ruleMeaning(rule) {
  const port = rule.port === null || rule.port === undefined ? 'every port' : `port ${rule.port}`;
  const verb = rule.list === 'allow' ? 'allowed' : 'denied';
  return `${verb}, ${port}${rule.private ? '; may resolve to private ranges' : ''}`;
}

// GET /api/v1/explain: the allow-list of the launch explained, entry by
// entry (hidden when the network is open or closed).
export function renderExplainNetwork(policy) {
  const rules = networkRuleList(policy);
  $('explain-network').hidden = policy.network !== 'allow-list';
  $('explain-network-text').textContent = policy.network === 'allow-list'
    ? `Network: ${NETWORK_MEANS['allow-list']}. From the ${policy.networkOrigin} scope; ${rules.length ? `${rules.length} entr${rules.length === 1 ? 'y' : 'ies'}` : 'no entry, so nothing gets out'}.`
    : '';
  fill($('explain-network-table').tBodies[0], rules.map((rule) => el('tr', { 'data-list': rule.list },
    th('Entry', { className: 'path' }, rule.entry),
    td('List', {}, rule.list),
    td('Port', {}, rule.port === null || rule.port === undefined ? 'every port' : String(rule.port)),
    td('Private ranges', {}, rule.list === 'deny' ? '—' : rule.private ? 'yes: may resolve to them' : 'no: public addresses only'),
    td('From', {}, rule.origin))));
}

// GET /api/v1/sandbox: what a command may read, write and reach, each part
// with where it came from. `failure` is the service's refusal instead.
export function renderSandbox(answer, failure) {
  const body = $('sandbox-table').tBodies[0];
  if (failure) {
    fill(body);
    $('sandbox-summary').textContent = `No command can start now: ${failure}`;
    return;
  }
  const p = answer.policy;
  const rows = p.filesystem.map((entry) => el('tr', {},
    th('Part', { className: 'path' }, entry.written),
    td('Value', {}, `${entry.access}: ${ACCESS_MEANS[entry.access] || entry.access}`),
    td('From', {}, entry.origin)));
  rows.push(el('tr', { id: 'sandbox-network' }, th('Part', {}, 'network'),
    td('Value', {}, NETWORK_MEANS[p.network] || p.network), td('From', {}, p.networkOrigin)));
  for (const rule of networkRuleList(p)) {
    rows.push(el('tr', { className: 'network-rule', 'data-list': rule.list },
      th('Part', { className: 'path' }, `network.${rule.list}: ${rule.entry}`),
      td('Value', {}, ruleMeaning(rule)), td('From', {}, rule.origin)));
  }
  rows.push(el('tr', { id: 'sandbox-unix-sockets' }, th('Part', {}, 'unixSockets'),
    td('Value', {}, `${p.unixSockets}: ${p.unixSocketsReach}`), td('From', {}, p.unixSocketsOrigin)));
  rows.push(el('tr', {}, th('Part', {}, 'limits'), td('Value', {}, p.limitsText), td('From', {}, p.limitsOrigin)));
  fill(body, rows);
  $('sandbox-summary').textContent = p.form === 'built-in default'
    ? 'No operator scope sets tools.executionSandbox, so the built-in default policy applies. A path no entry covers is hidden; the longest entry that covers a path decides.'
    : `The ${p.form} form from the ${p.filesystemOrigin} scope; parts it leaves unset take the built-in default. A path no entry covers is hidden; the longest entry that covers a path decides.`;
  $('sandbox-text').textContent = answer.text;
}

// The last saves of the scope being edited. `onLoad(entry)` puts an
// earlier one into the form.
export function renderHistory(answer, currentRevision, onLoad) {
  const entries = answer ? answer.entries : [];
  fill($('history-table').tBodies[0], entries.map((entry) => {
    let action;
    if (!entry.exists) {
      action = 'no file then';
    } else if (entry.revision === currentRevision) {
      action = 'in the form now';
    } else {
      const button = el('button', { type: 'button', className: 'history-load', 'data-revision': String(entry.revision) },
        `Load revision ${entry.revision} into the form`);
      button.addEventListener('click', () => onLoad(entry));
      action = button;
    }
    return el('tr', {},
      th('Revision', {}, entry.exists ? String(entry.revision) : '—'),
      td('Seen', {}, new Date(entry.seenUnixMs).toLocaleString()),
      td('Changed keys', { className: 'key' }, entry.keys.length ? entry.keys.join(', ') : '—'),
      td('', {}, action));
  }));
  $('history-info').textContent = entries.length
    ? 'The saves of this scope holdfast serve has seen since it started, newest first (saves made in a quick burst may show as the last of them). Loading one puts it into the form; Save then makes it the next revision.'
    : 'No saves of this scope seen yet.';
}

// A conflict, key by key: base (what you loaded), theirs (the file now),
// yours (the form), and who changed it.
export function renderConflict(rows) {
  const who = { you: 'you', them: 'them', both: 'both (yours will replace theirs)' };
  fill($('conflict-table').tBodies[0], rows.length
    ? rows.map((row) => el('tr', { 'data-key': row.key, 'data-changed-by': row.changedBy },
      th('Key', { className: 'key' }, row.key),
      td('When you loaded it', { className: 'value' }, valueText(row.base)),
      td('In the file now (theirs)', { className: 'value' }, valueText(row.theirs)),
      td('Yours', { className: 'value' }, valueText(row.yours)),
      td('Changed by', {}, who[row.changedBy])))
    : el('tr', {}, el('td', { colSpan: 5 }, 'No value differs (the file was saved again unchanged).')));
}

// The launches whose connections are shown, by launch (kept across a
// refresh of the table).
const openConnections = new Set();

const launchId = (r) => `${r.time_unix_ms}-${r.pid}`;
const orDash = (v) => (v === undefined || v === null || v === '' ? '—' : valueText(v));
const hostPort = (c) => `${String(c.host).includes(':') ? `[${c.host}]` : c.host}:${c.port}`;

function timeText(time) {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? orDash(time) : date.toLocaleString();
}

// One attempt of a launch to get out, as its audit line has it. A refused
// one says so in words (not only by its colour).
function connectionRow(c) {
  const refused = c.allowed !== true;
  return el('tr', { className: refused ? 'refused' : 'allowed', 'data-verdict': refused ? 'refused' : 'allowed' },
    td('Time', {}, timeText(c.time)),
    td('Protocol', {}, orDash(c.protocol)),
    th('Host:port', { className: 'path' }, hostPort(c)),
    td('SNI', { className: 'path' }, orDash(c.sni)),
    td('Address', { className: 'path' }, orDash(c.address)),
    td('Verdict', {}, refused ? el('strong', {}, 'refused') : 'allowed'),
    td('Reason', {}, orDash(c.reason)),
    td('Rule', { className: 'path' }, c.rule ? `${c.rule}${c.origin ? ` (${c.origin})` : ''}` : '—'));
}

// The table of a launch's connections, in a row of its own under it.
function connectionsRow(r, rowId, columns) {
  const n = r.network;
  const connections = Array.isArray(n.connections) ? n.connections : null;
  const total = (n.allowed || 0) + (n.refused || 0);
  let note;
  if (!connections) note = `The audit log ${orDash(n.audit)} cannot be read here (only logs in the state directory's network/ are shown).`;
  else if (connections.length < total) note = `The first ${connections.length} of ${total} attempts; the audit log ${n.audit} has them all.`;
  else note = `Every attempt to get out, from the audit log ${n.audit}.`;
  const when = r.time_unix_ms ? new Date(r.time_unix_ms).toLocaleString() : '?';
  const table = connections && connections.length
    ? el('div', { className: 'table-wrap' }, el('table', { className: 'stack connections' },
      el('caption', {}, `Connections of the launch at ${when}`),
      el('thead', {}, el('tr', {}, ['Time', 'Protocol', 'Host:port', 'SNI', 'Address', 'Verdict', 'Reason', 'Rule']
        .map((name) => el('th', { scope: 'col' }, name)))),
      el('tbody', {}, connections.map(connectionRow))))
    : null;
  const cell = el('td', { colSpan: columns, className: 'connections-cell' }, el('p', { className: 'hint' }, note), table);
  return el('tr', { id: rowId, className: 'connections-row', hidden: !openConnections.has(launchId(r)) }, cell);
}

// The Network cell of a launch: closed, open, or what its allow-list let
// through and refused, with a button that shows its connections.
function networkCell(r, rowId, when) {
  const n = r.network;
  if (!n || typeof n !== 'object') return td('Network', {}, '—');
  if (typeof n.policy === 'string') return td('Network', {}, n.policy);
  const counts = `allow-list: ${n.allowed || 0} allowed, ${n.refused || 0} refused`;
  const open = openConnections.has(launchId(r));
  const button = el('button', {
    type: 'button', className: 'connections-toggle', 'aria-expanded': open ? 'true' : 'false', 'aria-controls': rowId,
  }, el('span', {}, open ? 'Hide connections' : 'Show connections'),
  el('span', { className: 'visually-hidden' }, ` of the launch at ${when}`));
  button.addEventListener('click', () => {
    const row = document.getElementById(rowId);
    const show = row.hidden;
    row.hidden = !show;
    if (show) openConnections.add(launchId(r));
    else openConnections.delete(launchId(r));
    button.setAttribute('aria-expanded', show ? 'true' : 'false');
    button.firstChild.textContent = show ? 'Hide connections' : 'Show connections';
  });
  return td('Network', {}, el('span', { className: 'network-counts' }, counts), ' ', button);
}

export function renderLaunches(body) {
  const records = [...body.records].reverse();
  $('launches-info').textContent = body.path
    ? `${records.length ? records.length : 'No'} record${records.length === 1 ? '' : 's'} from ${body.path}${body.skipped ? ` (${body.skipped} unreadable lines skipped)` : ''}.`
    : 'No state directory, so no launch records.';
  const columns = $('launches-table').tHead.rows[0].cells.length;
  fill($('launches-table').tBodies[0], records.flatMap((r, i) => {
    const rowId = `launch-connections-${i}`;
    const allowList = r.network && typeof r.network === 'object' && r.network.policy && typeof r.network.policy === 'object';
    const when = r.time_unix_ms ? new Date(r.time_unix_ms).toLocaleString() : '?';
    const row = el('tr', { className: 'launch' },
      td('Time', {}, when),
      td('Command', { className: 'value' }, Array.isArray(r.command) ? r.command.join(' ') : valueText(r.command)),
      td('Workspace', { className: 'path' }, valueText(r.workspace)),
      td('Exit', {}, valueText(r.exit_status)),
      networkCell(r, rowId, when),
      td('Policy', { className: 'path' }, valueText(r.policy_digest)));
    return allowList ? [row, connectionsRow(r, rowId, columns)] : [row];
  }));
}
