// The stack's table matches the shared table definition, and by default survives the stack.
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { cdkJsonContext } from '../../infra/stack/cdk-json-context';
import { createEmailCampaignStack, type EmailCampaignStack } from '../../infra/stack/email-campaign-stack';
import { createTableInput } from '../../shared/table/definition';

interface TableProperties {
  KeySchema: unknown[];
  AttributeDefinitions: { AttributeName: string; AttributeType: string }[];
  GlobalSecondaryIndexes: unknown[];
}

const byName = (a: { AttributeName: string }, b: { AttributeName: string }) => a.AttributeName.localeCompare(b.AttributeName);

describe('data table', () => {
  let stack: EmailCampaignStack;
  let template: Template;

  beforeAll(() => {
    // The table does not depend on the bundles, so skip esbuild; `npm run synth` runs CloudFormation's own checks.
    const app = new App({
      builtinCloudFormationValidation: false,
      context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [] },
    });
    stack = createEmailCampaignStack(app);
    template = Template.fromStack(stack);
  });

  function tableProperties(): TableProperties {
    const tables = Object.values(template.findResources('AWS::DynamoDB::Table'));
    expect(tables).toHaveLength(1);
    return (tables[0] as { Properties: TableProperties }).Properties;
  }

  test('has the keys, attributes and GSI the local table is created with', () => {
    const local = createTableInput('any');
    const deployed = tableProperties();

    expect(deployed.KeySchema).toEqual(local.KeySchema);
    expect([...deployed.AttributeDefinitions].sort(byName)).toEqual([...local.AttributeDefinitions].sort(byName));
    expect(deployed.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
  });

  test('uses string keys pk/sk and the gsi1 index with every attribute projected', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'gsi1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  test('expires items through the expires_at TTL attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
    });
  });

  test('bills on demand and keeps point-in-time recovery', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  test('is retained and deletion-protected unless allowDestroy is given', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { DeletionProtectionEnabled: true },
    });
  });

  test('outputs the table name', () => {
    template.hasOutput('TableName', { Value: stack.resolve(stack.table.tableName) });
  });
});
