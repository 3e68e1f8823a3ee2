// Watching adapter: filled in by its issue.
