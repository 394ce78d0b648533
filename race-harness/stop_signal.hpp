// A writer process (`holdfast-race` re-executed as one of a campaign's
// writers) runs until the campaign sends SIGTERM (or a person presses
// Ctrl-C): the signal only raises a flag, which the writer's loop reads
// between saves, so a save is never cut in half by the writer itself.
#pragma once

namespace holdfast::race {

// Installs the handler for SIGTERM and SIGINT. Call once, at the start of
// a writer process.
void stop_on_term_or_interrupt();

// A stop was asked for.
bool stop_requested();

}  // namespace holdfast::race
