// Daemon adapter: filled in by its issue.
