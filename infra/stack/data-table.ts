// The one DynamoDB table, built from the same definition the local runtime uses.
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../shared/table/definition';

export interface DataTableOptions {
  /** Without it the table outlives the stack and refuses deletion, so no stage loses data by accident. */
  allowDestroy: boolean;
}

export function createDataTable(scope: Construct, { allowDestroy }: DataTableOptions): Table {
  const table = new Table(scope, 'Table', {
    // No tableName: a generated one lets stages share an account and lets CloudFormation replace the table.
    partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
    sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
    timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: !allowDestroy,
    removalPolicy: allowDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
  for (const index of tableDefinition.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });
  }
  return table;
}
