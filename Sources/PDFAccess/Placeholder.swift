// PDFAccess adapter: filled in by its issue.
