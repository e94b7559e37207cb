// The CDK app `cdk synth` and `cdk deploy` run (see cdk.json): one stack per stage, checked against
// cdk-nag's AwsSolutions rules, so an unacknowledged finding fails the synth instead of shipping.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createEmailCampaignStack } from './stack/email-campaign-stack';

const app = new App();
createEmailCampaignStack(app);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
