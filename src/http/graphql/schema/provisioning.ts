// Bulk provisioning (SPEC section 12): the plan of an import of things.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const provisioningSdl = /* GraphQL */ `
  "The format of an import file."
  enum ImportFormat {
    "CSV with a header row (RFC 4180, UTF-8, a BOM allowed): tuid, name, group_id, installation_status, label.<key>."
    CSV
    "One JSON object per line: tuid, name, group_id, installation_status, labels."
    NDJSON
  }

  "How many rows of the whole file do what."
  type ImportCounts {
    "Rows that create a thing."
    create: Int!
    "Rows that change a thing."
    update: Int!
    "Rows that leave a thing as it is."
    unchanged: Int!
    "Rows in error."
    error: Int!
  }

  "A bad field of a row."
  type ImportRowError {
    "The column (CSV) or key (NDJSON)."
    field: String!
    "What is wrong, as the single call that sets the field says it."
    message: String!
  }

  "What one row of the file does."
  type ImportRow {
    "The line where the record starts: the CSV header is line 1; NDJSON lines count from 1."
    row: Int!
    "The row's TUID (empty when it has none)."
    tuid: String!
    "create, update, unchanged or error."
    action: String!
    "Each changed field: {from, to}; null for unchanged and error rows."
    changes: JSON
    "Why the row cannot be applied; null unless the action is error."
    errors: [ImportRowError!]
  }

  "The plan of an import, and whether it was applied (all rows or none)."
  type ImportPlan {
    "True when nothing was meant to change."
    dryRun: Boolean!
    "True when the rows were applied."
    applied: Boolean!
    "Counts over the whole file."
    counts: ImportCounts!
    "The rows (without the unchanged ones when changedOnly was asked)."
    rows: [ImportRow!]!
  }
`;
