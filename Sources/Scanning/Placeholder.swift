// Scanning adapter: filled in by its issue.
