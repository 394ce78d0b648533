// The operator's settings page: reads and saves through the service's API
// (/api/v1), follows its event stream, and never keeps a copy that could
// be saved over someone else's change (every save sends If-Match).
import { $, el, fill, valueText } from './dom.js';
import {
  composeDocument, differences, formKeysInRaw, getPath, leaves, pathProblem,
  sameDocument, schemaProblems, stripFormKeys, toDotted, withoutRevision,
} from './model.js';

const API = '/api/v1';
const SCOPES = ['user', 'workspace', 'system-defaults', 'system'];

const state = {
  schema: null,
  workspace: '',
  scope: 'user',
  loaded: null, // {document, revision, path}: what the form was loaded from
  saving: false,
  conflict: null, // the current document and revision after a 412
  events: null,
};

// ---- talking to the service ------------------------------------------------

function query(params) {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v);
  const text = search.toString();
  return text ? `?${text}` : '';
}

function scopeUrl() {
  const workspace = state.scope === 'workspace' ? state.workspace : '';
  return `${API}/scopes/${encodeURIComponent(state.scope)}${query({ workspace })}`;
}

// {status, body}; body is the parsed JSON answer (every answer is JSON).
async function call(url, options = {}) {
  const response = await fetch(url, { credentials: 'same-origin', cache: 'no-store', ...options });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = { message: `the service answered ${response.status} without JSON` };
  }
  return { status: response.status, body };
}

function announce(text, kind = 'info') {
  const status = $('status');
  status.dataset.kind = kind;
  status.textContent = text;
}

// ---- effective settings and scope files -------------------------------------

function diagnosticItem(d) {
  const where = d.line ? `${d.file}:${d.line}:${d.column}` : d.file;
  return el('li', { className: d.severity === 'error' ? 'error' : 'warning' },
    el('span', { className: 'where' }, where), ' ', `${d.severity}: `,
    d.key ? `at ${d.key}: ` : '', d.message);
}

function renderSettings(settings) {
  const origins = settings.origins || {};
  const rows = settings.valid
    ? leaves(settings.effective || {}, true).filter(([path]) => path.length > 0).map(([path, value]) => {
      const key = toDotted(path);
      return el('tr', {}, el('th', { scope: 'row', className: 'key' }, key),
        el('td', { className: 'value' }, valueText(value)),
        el('td', {}, origins[key] || 'built-in default'));
    })
    : [];
  fill($('effective-table').tBodies[0], rows);
  $('effective-summary').textContent = settings.valid
    ? `${rows.length} value${rows.length === 1 ? '' : 's'} in effect; snapshot ${settings.digest}.`
    : 'A scope file is invalid, so nothing is in effect until it is fixed: a launch is refused. See the scope files below.';
  fill($('warnings'), (settings.warnings || []).map(diagnosticItem));
  if (!(settings.warnings || []).length) fill($('warnings'), el('li', {}, 'none'));
  fill($('scopes-table').tBodies[0], settings.scopes.map((scope) => {
    const stateCell = el('td', {});
    if (!scope.exists) stateCell.append('no file');
    else if (scope.valid) stateCell.append('valid');
    else stateCell.append(el('strong', {}, 'invalid'));
    if (scope.diagnostics.length) stateCell.append(el('ul', { className: 'diagnostics' }, scope.diagnostics.map(diagnosticItem)));
    return el('tr', {}, el('th', { scope: 'row' }, scope.scope), el('td', { className: 'path' }, scope.path),
      el('td', {}, scope.exists ? String(scope.revision) : '—'), stateCell);
  }));
}

async function refreshSettings() {
  const { status, body } = await call(`${API}/settings${query({ workspace: state.workspace })}`);
  if (status !== 200) {
    announce(`Could not read the settings: ${body.message}`, 'error');
    return null;
  }
  renderSettings(body);
  return body;
}

// ---- the form ---------------------------------------------------------------

const formField = {
  'tools.executionSandbox.network': 'network',
  'tools.executionSandbox.unixSockets': 'unix-sockets',
  'security.requireExecutionSandbox': 'require-sandbox',
  'permissions.allow': 'perm-allow',
  'permissions.ask': 'perm-ask',
  'permissions.deny': 'perm-deny',
  'permissions.defaultMode': 'default-mode',
};

let rowCount = 0;

function splitRow(path = '', access = 'read') {
  rowCount += 1;
  const pathId = `split-path-${rowCount}`;
  const accessId = `split-access-${rowCount}`;
  const pathInput = el('input', {
    id: pathId, type: 'text', value: path, spellcheck: false, autocomplete: 'off', list: 'path-tokens', className: 'split-path',
  });
  const accessSelect = el('select', { id: accessId, className: 'split-access' },
    ['read', 'write', 'deny'].map((a) => el('option', { value: a }, a)));
  accessSelect.value = access === 'none' ? 'deny' : access;
  const row = el('tr', {});
  const remove = el('button', { type: 'button', className: 'remove' }, 'Remove');
  remove.addEventListener('click', () => {
    const next = row.nextElementSibling || row.previousElementSibling;
    row.remove();
    formChanged();
    (next ? next.querySelector('input') : $('split-add')).focus();
  });
  // Each control is labelled by its own label, which names the row's path.
  const pathLabel = el('label', { for: pathId, className: 'visually-hidden' }, `Path ${rowCount}`);
  const accessLabel = el('label', { for: accessId, className: 'visually-hidden' }, `Access for path ${rowCount}`);
  remove.setAttribute('aria-label', `Remove path ${rowCount}`);
  row.append(el('td', {}, pathLabel, pathInput), el('td', {}, accessLabel, accessSelect), el('td', {}, remove));
  return row;
}

function showFilesystemForm() {
  const form = $('fs-form').value;
  $('simple-fields').hidden = form !== 'simple';
  $('split-fields').hidden = form !== 'split';
}

const lines = (text) => text.split('\n').map((l) => l.trim()).filter((l) => l !== '');

// Puts `document` (one scope's, as read) into the form.
function fillForm(document) {
  const doc = withoutRevision(document);
  const filesystem = getPath(doc, ['tools', 'executionSandbox', 'filesystem']);
  const splitBody = $('split-table').tBodies[0];
  splitBody.replaceChildren();
  if (typeof filesystem === 'string') {
    $('fs-form').value = 'simple';
    $('fs-simple').value = filesystem;
  } else if (filesystem && typeof filesystem === 'object' && !Array.isArray(filesystem)) {
    $('fs-form').value = 'split';
    for (const [path, access] of Object.entries(filesystem)) splitBody.append(splitRow(path, access));
  } else {
    $('fs-form').value = '';
  }
  showFilesystemForm();
  for (const [key, id] of Object.entries(formField)) {
    const value = getPath(doc, key.split('.'));
    const field = $(id);
    if (field.tagName === 'TEXTAREA') {
      field.value = Array.isArray(value) ? value.join('\n') : '';
      // An empty list in the file stays one when the field is left empty.
      field.dataset.emptyList = Array.isArray(value) && value.length === 0 ? 'yes' : 'no';
    } else {
      field.value = value === undefined ? '' : String(value);
    }
  }
  $('raw').value = JSON.stringify(stripFormKeys(doc), null, 2);
  clearErrors();
}

// What the form holds as a document, or null with the problems shown at
// their fields.
function readForm() {
  const problems = [];
  const form = {};
  const fsForm = $('fs-form').value;
  if (fsForm === 'simple') form['tools.executionSandbox.filesystem'] = $('fs-simple').value;
  if (fsForm === 'split') {
    const entries = {};
    for (const row of $('split-table').tBodies[0].rows) {
      const input = row.querySelector('input');
      const path = input.value.trim();
      const problem = pathProblem(path) || (path in entries ? `${path} is listed twice` : null);
      if (problem) problems.push({ field: input, message: problem });
      entries[path] = row.querySelector('select').value;
    }
    if (!Object.keys(entries).length) problems.push({ field: $('split-add'), message: 'add at least one path, or choose another filesystem form' });
    form['tools.executionSandbox.filesystem'] = entries;
  }
  for (const [key, id] of Object.entries(formField)) {
    const field = $(id);
    if (field.tagName === 'TEXTAREA') {
      const rules = lines(field.value);
      if (rules.length || field.dataset.emptyList === 'yes') form[key] = rules;
    } else if (field.value !== '') {
      form[key] = key === 'security.requireExecutionSandbox' ? field.value === 'true' : field.value;
    }
  }
  let rest = {};
  try {
    rest = $('raw').value.trim() === '' ? {} : JSON.parse($('raw').value);
    if (rest === null || typeof rest !== 'object' || Array.isArray(rest)) {
      problems.push({ field: $('raw'), message: 'the document must be a JSON object: { ... }' });
      rest = {};
    }
  } catch (e) {
    problems.push({ field: $('raw'), message: `not JSON: ${e.message}` });
  }
  const doubled = formKeysInRaw(rest);
  if (doubled.length) {
    problems.push({ field: $('raw'), message: `set ${doubled.join(', ')} with the form above, not here` });
  }
  delete rest.$revision;
  const document = composeDocument(rest, form);
  if (state.schema && !problems.some((p) => p.field === $('raw'))) {
    for (const p of schemaProblems(state.schema, document)) problems.push({ field: fieldForKey(p.key), message: `${p.key}: ${p.message}` });
  }
  return { document, problems };
}

// The control a problem at `key` (dotted) belongs to.
function fieldForKey(key) {
  const fsKey = 'tools.executionSandbox.filesystem';
  if (key === fsKey) return $('fs-form').value === 'simple' ? $('fs-simple') : $('fs-form');
  if (key.startsWith(`${fsKey}.`)) {
    for (const row of $('split-table').tBodies[0].rows) {
      const input = row.querySelector('input');
      if (`${fsKey}.${toDotted([input.value.trim()])}` === key || `${fsKey}.${input.value.trim()}` === key) return row.querySelector('select');
    }
    return $('fs-form');
  }
  for (const [formKey, id] of Object.entries(formField)) {
    if (key === formKey || key.startsWith(`${formKey}.`)) return $(id);
  }
  return $('raw');
}

function errorNodeFor(field) {
  if (field.closest('#split-table') || field === $('split-add')) return $('split-error');
  const id = `${field.id}-error`;
  let node = document.getElementById(id);
  if (!node) {
    node = el('p', { id, className: 'field-error' });
    field.insertAdjacentElement('afterend', node);
  }
  return node;
}

function showProblems(problems) {
  clearErrors();
  for (const { field, message } of problems) {
    const node = errorNodeFor(field);
    node.hidden = false;
    node.append(el('span', { className: 'problem' }, message));
    field.setAttribute('aria-invalid', 'true');
    if (field.tagName !== 'BUTTON') field.setAttribute('aria-describedby', node.id);
  }
}

function clearErrors() {
  for (const node of document.querySelectorAll('.field-error')) {
    node.replaceChildren();
    node.hidden = true;
  }
  for (const field of document.querySelectorAll('[aria-invalid]')) {
    field.removeAttribute('aria-invalid');
    field.removeAttribute('aria-describedby');
  }
}

function isDirty() {
  if (!state.loaded) return false;
  const { document, problems } = readForm();
  if (problems.length) return true;
  return !sameDocument(document, withoutRevision(state.loaded.document));
}

// Checked on every edit, so that a mistake is shown at its field before
// anything is saved.
function formChanged() {
  const { problems } = readForm();
  showProblems(problems);
  $('edit-form').dataset.dirty = isDirty() ? 'yes' : 'no';
}

function showLoadedInfo() {
  const loaded = state.loaded;
  const info = $('loaded-info');
  info.textContent = loaded.exists
    ? `Editing ${state.scope}: ${loaded.path}, revision ${loaded.revision}.`
    : `Editing ${state.scope}: ${loaded.path} does not exist yet; saving creates it (revision ${loaded.revision}).`;
  $('edit-form').dataset.revision = String(loaded.revision);
}

function load(scopeAnswer) {
  state.loaded = {
    document: scopeAnswer.document || {}, revision: scopeAnswer.revision, path: scopeAnswer.path, exists: scopeAnswer.exists,
  };
  fillForm(state.loaded.document);
  showLoadedInfo();
  $('underneath').hidden = true;
  $('conflict').hidden = true;
  state.conflict = null;
  $('edit-form').dataset.dirty = 'no';
  $('sandbox-ignored').hidden = state.scope !== 'workspace';
  // An invalid file is shown, never saved over: the form would hold only
  // what could be read of it.
  const errors = (scopeAnswer.diagnostics || []).filter((d) => d.severity === 'error');
  state.loaded.valid = errors.length === 0;
  fill($('scope-invalid-list'), errors.map(diagnosticItem));
  $('scope-invalid').hidden = state.loaded.valid;
  $('save').disabled = !state.loaded.valid;
  if (!state.loaded.valid) {
    announce(`${scopeAnswer.path} is invalid (line ${errors[0].line}, column ${errors[0].column}: ${errors[0].message}); fix it by hand.`, 'error');
  }
}

async function loadScope() {
  if (state.scope === 'workspace' && !state.workspace) {
    announce('Choose a workspace directory first to edit its scope.', 'error');
    return false;
  }
  const { status, body } = await call(scopeUrl());
  if (status !== 200) {
    announce(`Could not read the ${state.scope} scope: ${body.message}`, 'error');
    return false;
  }
  load(body);
  return true;
}

function fillScopeChoices() {
  const select = $('scope');
  const choices = SCOPES.filter((s) => s !== 'workspace' || state.workspace);
  const labels = {
    user: 'user (yours)',
    workspace: `workspace (${state.workspace})`,
    'system-defaults': 'system-defaults (the administrator\'s defaults)',
    system: 'system (the administrator\'s overrides)',
  };
  fill(select, choices.map((s) => el('option', { value: s }, labels[s])));
  if (!choices.includes(state.scope)) state.scope = 'user';
  select.value = state.scope;
}

// ---- saving -----------------------------------------------------------------

async function save(revision) {
  const { document, problems } = readForm();
  showProblems(problems);
  if (problems.length) {
    announce(`Not saved: ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${problems[0].message}`, 'error');
    const first = problems[0].field;
    first.focus();
    return;
  }
  state.saving = true;
  try {
    const { status, body } = await call(scopeUrl(), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'If-Match': `"${revision}"` },
      body: JSON.stringify(document),
    });
    if (status === 200) {
      state.loaded = {
        document, revision: body.revision, path: body.path, exists: true, valid: true,
      };
      showLoadedInfo();
      $('conflict').hidden = true;
      $('underneath').hidden = true;
      state.conflict = null;
      $('edit-form').dataset.dirty = 'no';
      announce(`Saved ${body.path}: revision ${body.revision}.`);
    } else if (status === 412) {
      showConflict(body);
    } else if (status === 422 && body.diagnostics) {
      showProblems(body.diagnostics.filter((d) => d.severity === 'error')
        .map((d) => ({ field: fieldForKey(d.key || ''), message: `${d.key}: ${d.message}` })));
      announce(`Not saved: ${body.message}`, 'error');
    } else {
      announce(`Not saved: ${body.message}`, 'error');
    }
  } catch (e) {
    announce(`Not saved: the service could not be reached (${e.message}).`, 'error');
  } finally {
    state.saving = false;
  }
  await Promise.all([refreshSettings(), checkScope()]);
}

function showConflict(current) {
  state.conflict = current;
  const changes = differences(state.loaded.document, current.document || {});
  $('conflict-text').textContent =
    `${current.path} is at revision ${current.revision} now; you loaded revision ${state.loaded.revision}. ` +
    'Your edits are still in the form. Reload to take what is in the file (your edits are lost), ' +
    'or overwrite to save your form over it.';
  fill($('conflict-table').tBodies[0], changes.length
    ? changes.map((c) => el('tr', {}, el('th', { scope: 'row', className: 'key' }, c.key),
      el('td', { className: 'value' }, valueText(c.before)), el('td', { className: 'value' }, valueText(c.after))))
    : el('tr', {}, el('td', { colSpan: 3 }, 'No value differs (the file was saved again unchanged).')));
  $('underneath').hidden = true;
  $('conflict').hidden = false;
  $('conflict').focus();
  announce(`Not saved: someone saved ${current.path} in between (revision ${current.revision}).`, 'error');
}

// Did the scope being edited change on disk? Reload it if the operator has
// no edits; otherwise keep the edits and say so.
async function checkScope() {
  if (state.saving || !state.loaded) return;
  if (state.scope === 'workspace' && !state.workspace) return;
  const { status, body } = await call(scopeUrl());
  if (status !== 200 || state.saving) return;
  if (body.revision === state.loaded.revision && body.valid === state.loaded.valid) return;
  if (state.conflict) return; // the conflict view already shows the newer file
  if (isDirty()) {
    $('underneath-text').textContent = `${body.path} was saved elsewhere (revision ${body.revision}) while you edit it. ` +
      'Your edits are kept; saving them will show what changed.';
    $('underneath').hidden = false;
    announce(`${body.path} changed underneath your edits (revision ${body.revision}).`);
  } else {
    load(body);
    announce(`${body.path} was saved elsewhere; showing revision ${body.revision}.`);
  }
}

// ---- live changes -----------------------------------------------------------

function setConnection(live, text) {
  const node = $('connection');
  node.dataset.live = live ? 'yes' : 'no';
  node.textContent = text;
}

function followEvents() {
  if (state.events) state.events.close();
  const events = new EventSource(`${API}/events${query({ workspace: state.workspace })}`);
  state.events = events;
  // Open once the service's watcher is running: a save from now on is
  // reported.
  events.addEventListener('open', () => setConnection(true, 'Live: saves made elsewhere appear here.'));
  let lastError = '';
  events.addEventListener('change', async () => {
    lastError = '';
    await Promise.all([refreshSettings(), checkScope()]);
    setConnection(true, 'Live: saves made elsewhere appear here.');
  });
  // The same name carries the service's own "error" events (with data)
  // and the browser's word that the connection broke (without).
  events.addEventListener('error', (event) => {
    if (event.data) {
      // Said once, not at every repetition: it would drown what the
      // operator just did.
      if (event.data === lastError) return;
      lastError = event.data;
      let message = '';
      try {
        message = JSON.parse(event.data).message;
      } catch {
        message = event.data;
      }
      announce(`The settings cannot be read now: ${message}`, 'error');
    } else if (events.readyState !== EventSource.OPEN) {
      setConnection(false, 'Not live: the connection to holdfast serve was lost; retrying. Reload the page if the service was restarted (it has a new token).');
    }
  });
}

// ---- launches and explain -----------------------------------------------------

async function refreshLaunches() {
  const { status, body } = await call(`${API}/launches?limit=20`);
  if (status !== 200) {
    $('launches-info').textContent = `Could not read the launch records: ${body.message}`;
    return;
  }
  const records = [...body.records].reverse();
  $('launches-info').textContent = body.path
    ? `${records.length ? records.length : 'No'} record${records.length === 1 ? '' : 's'} from ${body.path}${body.skipped ? ` (${body.skipped} unreadable lines skipped)` : ''}.`
    : 'No state directory, so no launch records.';
  fill($('launches-table').tBodies[0], records.map((r) => el('tr', {},
    el('td', {}, r.time_unix_ms ? new Date(r.time_unix_ms).toLocaleString() : '?'),
    el('td', { className: 'value' }, Array.isArray(r.command) ? r.command.join(' ') : valueText(r.command)),
    el('td', { className: 'path' }, valueText(r.workspace)),
    el('td', {}, valueText(r.exit_status)),
    el('td', { className: 'path' }, valueText(r.policy_digest)))));
}

async function explain() {
  const field = $('explain-workspace');
  const workspace = field.value.trim();
  const output = $('explain-output');
  clearFieldError(field);
  if (!workspace.startsWith('/')) {
    setFieldError(field, 'enter the absolute path of a workspace directory');
    field.focus();
    return;
  }
  announce(`Explaining a launch in ${workspace}…`);
  const { status, body } = await call(`${API}/explain${query({ workspace })}`);
  if (status !== 200) {
    setFieldError(field, body.message);
    output.hidden = true;
    announce(`Cannot explain: ${body.message}`, 'error');
    return;
  }
  output.textContent = body.text;
  output.hidden = false;
  announce(`Explained a launch in ${workspace}: policy ${body.policy.digest}.`);
}

function setFieldError(field, message) {
  const node = errorNodeFor(field);
  node.textContent = message;
  node.hidden = false;
  field.setAttribute('aria-invalid', 'true');
  field.setAttribute('aria-describedby', node.id);
}

function clearFieldError(field) {
  const node = errorNodeFor(field);
  node.replaceChildren();
  node.hidden = true;
  field.removeAttribute('aria-invalid');
  field.removeAttribute('aria-describedby');
}

// ---- wiring -------------------------------------------------------------------

async function useWorkspace(workspace) {
  const field = $('workspace');
  clearFieldError(field);
  if (workspace && !workspace.startsWith('/')) {
    setFieldError(field, 'a workspace is an absolute directory, such as /home/me/project');
    field.focus();
    return;
  }
  state.workspace = workspace;
  if (!$('explain-workspace').value) $('explain-workspace').value = workspace;
  fillScopeChoices();
  const settings = await refreshSettings();
  if (settings) await loadScope();
  followEvents();
}

function wire() {
  $('workspace-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (isDirty() && !window.confirm('Discard your unsaved edits?')) return;
    useWorkspace($('workspace').value.trim());
  });
  $('scope').addEventListener('change', async () => {
    const previous = state.scope;
    if (isDirty() && !window.confirm('Discard your unsaved edits?')) {
      $('scope').value = previous;
      return;
    }
    state.scope = $('scope').value;
    if (await loadScope()) announce(`Editing the ${state.scope} scope (revision ${state.loaded.revision}).`);
  });
  $('fs-form').addEventListener('change', () => {
    if ($('fs-form').value === 'split' && !$('split-table').tBodies[0].rows.length) {
      $('split-table').tBodies[0].append(splitRow(':root', 'read'), splitRow(':workspace', 'write'));
    }
    showFilesystemForm();
  });
  $('split-add').addEventListener('click', () => {
    const row = splitRow();
    $('split-table').tBodies[0].append(row);
    formChanged();
    row.querySelector('input').focus();
  });
  const form = $('edit-form');
  form.addEventListener('input', formChanged);
  form.addEventListener('change', formChanged);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (state.conflict) {
      announce('Choose first: reload (discard your edits) or overwrite (save yours over theirs).', 'error');
      $('conflict').focus();
      return;
    }
    save(state.loaded.revision);
  });
  $('revert').addEventListener('click', () => loadScope().then((ok) => ok && announce('Your edits were discarded.')));
  $('underneath-reload').addEventListener('click', () => loadScope().then((ok) => ok && announce(`Reloaded: revision ${state.loaded.revision}.`)));
  $('conflict-reload').addEventListener('click', () => {
    load(state.conflict);
    announce(`Reloaded: your edits were discarded; showing revision ${state.loaded.revision}.`);
    $('editor').focus();
  });
  $('conflict-overwrite').addEventListener('click', () => {
    const current = state.conflict;
    state.loaded = { ...state.loaded, document: current.document || {}, revision: current.revision };
    state.conflict = null;
    $('conflict').hidden = true;
    $('editor').focus();
    save(current.revision);
  });
  $('launches-refresh').addEventListener('click', refreshLaunches);
  $('explain-form').addEventListener('submit', (event) => {
    event.preventDefault();
    explain();
  });
}

async function start() {
  wire();
  const { status, body } = await call(`${API}/schema`);
  if (status === 200) state.schema = body;
  else announce(`Could not read the schema (${body.message}); the service still checks every save.`, 'error');
  await useWorkspace('');
  await refreshLaunches();
  document.body.dataset.ready = 'yes';
}

start();
