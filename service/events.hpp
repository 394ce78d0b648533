// GET /api/v1/events: server-sent events from the settings watcher.
//
// Each stream runs its own Watcher (inotify on the scope directories of
// the requested workspace) and sends one event per effective change:
//   event: change
//   data: {"initial": false, "digest": ..., "revisions": {...},
//          "scopes": [...], "keys": [...]}
// The first event ("initial": true) is the state the stream starts from;
// a client that saves after it arrived sees its save as a later event. A
// reading that fails (a file being edited by hand is invalid) is an
// "error" event, and watching goes on.
#pragma once

#include <httplib.h>

namespace holdfast::service {

void add_event_routes(httplib::Server& server);

// Ends every open event stream (at shutdown, so that the server's threads
// can finish).
void close_event_streams();

}  // namespace holdfast::service
