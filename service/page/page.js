// The operator's settings page: reads and saves through the service's API
// (/api/v1), follows its event stream, and never keeps a copy that could
// be saved over someone else's change (every save sends If-Match; after a
// conflict only your own changes are applied on top of theirs).
import { API, call, query } from './api.js';
import { $, el, fill } from './dom.js';
import {
  clearErrors, clearFieldError, fillForm, problemAt, readForm, setFieldError, showFilesystemForm,
  showNetworkRules, showProblems, showUnixSocketsDefault, splitRow, whenRowsChange,
} from './form.js';
import { followEvents } from './live.js';
import { applyMineOnTheirs, sameDocument, threeWay, withoutRevision } from './model.js';
import { obtainSession } from './session.js';
import {
  diagnosticItem, renderConflict, renderExplainNetwork, renderHistory, renderLaunches, renderSandbox,
  renderSettings,
} from './views.js';

const SCOPES = ['user', 'workspace', 'system-defaults', 'system'];

const state = {
  schema: null,
  workspace: '',
  scope: 'user',
  loaded: null, // {document, revision, path, exists, valid}: what the form was loaded from
  saving: false,
  conflict: null, // {theirs: the scope answer of the 412, yours: the form's document then}
  stopEvents: null,
};

function scopeQuery() {
  return query({ workspace: state.scope === 'workspace' ? state.workspace : '' });
}

function scopeUrl() {
  return `${API}/scopes/${encodeURIComponent(state.scope)}${scopeQuery()}`;
}

function announce(text, kind = 'info') {
  const status = $('status');
  status.dataset.kind = kind;
  status.textContent = text;
}

// ---- what is in effect --------------------------------------------------------

async function refreshSettings() {
  const { status, body } = await call(`${API}/settings${query({ workspace: state.workspace })}`);
  if (status !== 200) {
    announce(`Could not read the settings: ${body.message}`, 'error');
    return null;
  }
  renderSettings(body);
  return body;
}

// `settings`: the last answer of refreshSettings; with a scope invalid, no
// command starts (the service would answer 422), and the view says so.
async function refreshSandbox(settings) {
  if (!settings || !settings.valid) {
    renderSandbox(null, 'a scope file is invalid (see the scope files above); a launch is refused until it is fixed.');
    return;
  }
  const { status, body } = await call(`${API}/sandbox${query({ workspace: state.workspace })}`);
  if (status === 200) renderSandbox(body, null);
  else renderSandbox(null, body.message);
}

// ---- the scope being edited -----------------------------------------------------

function isDirty() {
  if (!state.loaded) return false;
  const { document, problems } = readForm(state.schema);
  if (problems.length) return true;
  return !sameDocument(document, withoutRevision(state.loaded.document));
}

// Checked on every edit, so that a mistake is shown at its field before
// anything is saved.
function formChanged() {
  const { problems } = readForm(state.schema);
  showProblems(problems);
  showUnixSocketsDefault();
  $('edit-form').dataset.dirty = isDirty() ? 'yes' : 'no';
}

function showLoadedInfo() {
  const loaded = state.loaded;
  $('loaded-info').textContent = loaded.exists
    ? `Editing ${state.scope}: ${loaded.path}, revision ${loaded.revision}.`
    : `Editing ${state.scope}: ${loaded.path} does not exist yet; saving creates it (revision ${loaded.revision}).`;
  $('edit-form').dataset.revision = String(loaded.revision);
}

function closeConflict() {
  state.conflict = null;
  $('conflict').hidden = true;
}

function load(scopeAnswer) {
  state.loaded = {
    document: scopeAnswer.document || {}, revision: scopeAnswer.revision, path: scopeAnswer.path, exists: scopeAnswer.exists,
  };
  fillForm(state.loaded.document);
  showUnixSocketsDefault();
  showLoadedInfo();
  $('underneath').hidden = true;
  closeConflict();
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
  await refreshHistory();
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

// ---- history: the last saves, and a way back ----------------------------------

async function refreshHistory() {
  if (state.scope === 'workspace' && !state.workspace) return;
  const { status, body } = await call(`${API}/scopes/${encodeURIComponent(state.scope)}/history${scopeQuery()}`);
  renderHistory(status === 200 ? body : null, state.loaded ? state.loaded.revision : null, loadEarlier);
}

// Puts an earlier revision into the form; Save then saves it as the next
// revision, with If-Match of the one loaded (a save made meanwhile is a
// conflict as always).
async function loadEarlier(entry) {
  const { status, body } = await call(`${API}/scopes/${encodeURIComponent(state.scope)}/history/${entry.id}${scopeQuery()}`);
  if (status !== 200) {
    announce(`Could not load revision ${entry.revision}: ${body.message}`, 'error');
    return;
  }
  fillForm(body.document);
  formChanged();
  announce(`Revision ${entry.revision} is in the form. Save makes it revision ${state.loaded.revision + 1} (the file is at revision ${state.loaded.revision}).`);
  $('editor').focus();
}

// ---- saving -----------------------------------------------------------------

async function save(revision) {
  const { document, problems } = readForm(state.schema);
  showProblems(problems);
  if (problems.length) {
    announce(`Not saved: ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${problems[0].message}`, 'error');
    problems[0].field.focus();
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
      closeConflict();
      $('underneath').hidden = true;
      $('edit-form').dataset.dirty = 'no';
      announce(`Saved ${body.path}: revision ${body.revision}.`);
    } else if (status === 412) {
      showConflict(body, document);
    } else if (status === 422 && body.diagnostics) {
      showProblems(body.diagnostics.filter((d) => d.severity === 'error')
        .map((d) => problemAt(d.key || '', d.message)));
      announce(`Not saved: ${body.message}`, 'error');
    } else {
      announce(`Not saved: ${body.message}`, 'error');
    }
  } catch (e) {
    announce(`Not saved: the service could not be reached (${e.message}).`, 'error');
  } finally {
    state.saving = false;
  }
  await Promise.all([refreshSettings().then(refreshSandbox), checkScope().then(refreshHistory)]);
}

function showConflict(theirs, yours) {
  state.conflict = { theirs, yours };
  const rows = threeWay(state.loaded.document, theirs.document || {}, yours);
  renderConflict(rows);
  const both = rows.filter((r) => r.changedBy === 'both').map((r) => r.key);
  $('conflict-text').textContent =
    `${theirs.path} is at revision ${theirs.revision} now; you loaded revision ${state.loaded.revision}. ` +
    'Your edits are still in the form. "Apply my changes" saves their version with only the keys you changed set to yours: ' +
    'every other key keeps their value.' +
    (both.length ? ` You both changed ${both.join(', ')}: yours will replace theirs there.` : '');
  $('conflict-apply').textContent = `Apply my changes to their version (revision ${theirs.revision})`;
  $('underneath').hidden = true;
  $('conflict').hidden = false;
  $('conflict').focus();
  announce(`Not saved: someone saved ${theirs.path} in between (revision ${theirs.revision}).`, 'error');
}

function applyMine() {
  const { theirs, yours } = state.conflict;
  const merged = applyMineOnTheirs(state.loaded.document, theirs.document || {}, yours);
  load(theirs); // their version is what the next save is made against
  fillForm(merged);
  formChanged();
  $('editor').focus();
  save(theirs.revision);
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
      'Your edits are kept; saving them shows what changed, key by key.';
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

let lastError = '';

function onEvent(name, data) {
  if (name === 'change') {
    lastError = '';
    // The history marks the revision in the form: drawn after checkScope
    // has loaded a newer one, not beside it.
    Promise.all([refreshSettings().then(refreshSandbox), checkScope().then(refreshHistory)]);
  } else if (name === 'error' && data !== lastError) {
    // Said once, not at every repetition: it would drown what the
    // operator just did.
    lastError = data;
    let message = data;
    try {
      message = JSON.parse(data).message;
    } catch { /* not JSON */ }
    announce(`The settings cannot be read now: ${message}`, 'error');
  }
}

function follow() {
  if (state.stopEvents) state.stopEvents();
  state.stopEvents = followEvents(state.workspace, onEvent, setConnection);
}

// ---- launches and explain -----------------------------------------------------

async function refreshLaunches() {
  const { status, body } = await call(`${API}/launches?limit=20`);
  if (status !== 200) {
    $('launches-info').textContent = `Could not read the launch records: ${body.message}`;
    return;
  }
  renderLaunches(body);
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
    $('explain-network').hidden = true;
    announce(`Cannot explain: ${body.message}`, 'error');
    return;
  }
  output.textContent = body.text;
  output.hidden = false;
  renderExplainNetwork(body.policy);
  announce(`Explained a launch in ${workspace}: policy ${body.policy.digest}.`);
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
  await refreshSandbox(settings);
  if (settings) await loadScope();
  follow();
}

function wire() {
  whenRowsChange(formChanged);
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
  $('network').addEventListener('change', showNetworkRules);
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
      announce('Choose first: apply your changes to their version, or reload (discard your edits).', 'error');
      $('conflict').focus();
      return;
    }
    save(state.loaded.revision);
  });
  $('revert').addEventListener('click', () => loadScope().then((ok) => ok && announce('Your edits were discarded.')));
  $('underneath-reload').addEventListener('click', () => loadScope().then((ok) => ok && announce(`Reloaded: revision ${state.loaded.revision}.`)));
  $('conflict-reload').addEventListener('click', () => {
    load(state.conflict.theirs);
    clearErrors();
    announce(`Reloaded: your edits were discarded; showing revision ${state.loaded.revision}.`);
    $('editor').focus();
  });
  $('conflict-apply').addEventListener('click', applyMine);
  $('launches-refresh').addEventListener('click', refreshLaunches);
  $('explain-form').addEventListener('submit', (event) => {
    event.preventDefault();
    explain();
  });
}

async function start() {
  wire();
  try {
    await obtainSession();
  } catch (e) {
    setConnection(false, 'Not connected.');
    announce(e.message, 'error');
    document.body.dataset.ready = 'no-session';
    return;
  }
  const { status, body } = await call(`${API}/schema`);
  if (status === 200) state.schema = body;
  else announce(`Could not read the schema (${body.message}); the service still checks every save.`, 'error');
  await useWorkspace('');
  await refreshLaunches();
  document.body.dataset.ready = 'yes';
}

start();
