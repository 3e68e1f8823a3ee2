// Imaging adapter: filled in by its issue.
