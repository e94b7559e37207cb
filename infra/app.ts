// The CDK app `cdk synth` and `cdk deploy` run (see cdk.json): one stack per stage.
import { App } from 'aws-cdk-lib';
import { createEmailCampaignStack } from './stack/email-campaign-stack';

const app = new App();
createEmailCampaignStack(app);
app.synth();
