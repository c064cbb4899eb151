/** One parameterized PostgreSQL statement, not yet sent. */
export interface Statement {
  text: string;
  values: unknown[];
}

/**
 * Several data-modifying statements as one: each becomes a WITH query of `select 1`, its parameters renumbered
 * after the previous ones'. One round trip instead of one per statement; each round trip of the ingest
 * transaction waits for the server and then for the busy event loop, so the batch's time (and with it how much
 * one instance commits) grows with their number. PostgreSQL runs every data-modifying WITH query to completion
 * whether or not it is read, all on one snapshot, in an order its documentation leaves open: fit only for
 * statements that write different tables and read nothing another of them writes. The texts must use `$n` only for
 * parameters.
 */
export function combineStatements(statements: readonly Statement[]): Statement | undefined {
  if (statements.length <= 1) return statements[0];
  const values: unknown[] = [];
  const parts = statements.map((statement, i) => {
    const offset = values.length;
    values.push(...statement.values);
    return `w${i} as (${statement.text.replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + offset}`)})`;
  });
  return { text: `with ${parts.join(',\n')}\nselect 1`, values };
}
