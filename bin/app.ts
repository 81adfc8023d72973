import { App } from 'aws-cdk-lib';
import { readStackConfig } from '../lib/config.ts';
import { applyNagChecks } from '../lib/nag.ts';
import { NotesStack } from '../lib/notes-stack.ts';

/**
 * The CDK app: `npx cdk synth | deploy | destroy [-c stage=prod]`. Settings come from CDK context
 * (cdk.json defaults, `-c key=value` overrides; lib/config.ts). The stack is environment-agnostic:
 * the account and region are the ones of the credentials `cdk deploy` runs with.
 */
const app = new App();
const config = readStackConfig(app.node);
new NotesStack(app, `notes-${config.stage}`, {
  config,
  description: `Notes service (${config.stage}): REST API, transcription workers, storage, MCP sign-in, docs`,
});
applyNagChecks(app);
app.synth();
