// Which tables a write statement changes, read off Kysely's query tree, for the group-commit
// driver's change stamps (sqlite-group-commit.ts). Anything it cannot vouch for (raw SQL,
// deletes, schema changes, CTEs) counts as changing every table.
import { AliasNode, InsertQueryNode, TableNode, UpdateQueryNode, type OperationNode } from 'kysely';

function tableName(node: OperationNode | undefined): string | undefined {
  const table = node && AliasNode.is(node) ? node.node : node;
  return table && TableNode.is(table) && !table.table.schema ? table.table.identifier.name : undefined;
}

/** The one table an INSERT or UPDATE writes, or undefined: assume every table changed. */
export function tableWrittenBy(query: OperationNode): string | undefined {
  // Deletes count as unknown on purpose: a foreign key with ON DELETE could reach further.
  if (InsertQueryNode.is(query) && !query.with) return tableName(query.into);
  if (UpdateQueryNode.is(query) && !query.with) return tableName(query.table);
  return undefined;
}
