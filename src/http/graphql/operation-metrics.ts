import { Kind, getOperationAST, type DocumentNode } from 'graphql';
import type { Metrics } from '../../observability/metrics.js';

/** How an operation ended: answered without errors, answered with errors, or refused before it ran. */
export type OperationOutcome = 'ok' | 'error' | 'refused';

/**
 * Counts one GraphQL operation in `thingdesk_graphql_operations_total`. The labels come from the validated
 * document only: its type and its first root field, both bounded by the schema. A refused document is counted
 * without them, since its names are whatever the client sent (unbounded label values).
 */
export function countOperation(metrics: Metrics, outcome: OperationOutcome, document?: DocumentNode, operationName?: string | null): void {
  if (outcome === 'refused' || !document) {
    metrics.graphqlOperations.inc({ type: '-', field: '-', outcome });
    return;
  }
  const operation = getOperationAST(document, operationName ?? undefined);
  const first = operation?.selectionSet.selections[0];
  const field = first?.kind === Kind.FIELD ? first.name.value : '-';
  metrics.graphqlOperations.inc({ type: operation?.operation ?? '-', field, outcome });
}
