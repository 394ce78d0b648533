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
  rows.push(el('tr', {}, th('Part', {}, 'network'),
    td('Value', {}, p.network === 'closed' ? 'closed: no network at all (an empty network namespace)' : 'open: the host\'s network'),
    td('From', {}, p.networkOrigin)));
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

export function renderLaunches(body) {
  const records = [...body.records].reverse();
  $('launches-info').textContent = body.path
    ? `${records.length ? records.length : 'No'} record${records.length === 1 ? '' : 's'} from ${body.path}${body.skipped ? ` (${body.skipped} unreadable lines skipped)` : ''}.`
    : 'No state directory, so no launch records.';
  fill($('launches-table').tBodies[0], records.map((r) => el('tr', {},
    td('Time', {}, r.time_unix_ms ? new Date(r.time_unix_ms).toLocaleString() : '?'),
    td('Command', { className: 'value' }, Array.isArray(r.command) ? r.command.join(' ') : valueText(r.command)),
    td('Workspace', { className: 'path' }, valueText(r.workspace)),
    td('Exit', {}, valueText(r.exit_status)),
    td('Policy', { className: 'path' }, valueText(r.policy_digest)))));
}
