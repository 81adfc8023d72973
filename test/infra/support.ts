/** Builds the CDK app in-process the way `cdk synth` does, minus bundling, and reads its template. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readStackConfig } from '../../lib/config.ts';
import { applyNagChecks } from '../../lib/nag.ts';
import { NotesStack } from '../../lib/notes-stack.ts';
import { repositoryRoot } from '../../lib/paths.ts';

export const STAGE = 'test';

export interface BuiltApp {
  app: App;
  stack: NotesStack;
  template: Template;
}

/**
 * The stack with cdk.json's context (feature flags and defaults), stage `test`, and bundling skipped
 * (`aws:cdk:bundling-stacks: []`: no esbuild runs; the asset is the handler's folder).
 */
export function buildNotesApp(context: Record<string, unknown> = {}): BuiltApp {
  const cdkJson = JSON.parse(readFileSync(join(repositoryRoot, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const app = new App({
    analyticsReporting: false,
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], stage: STAGE, ...context },
  });
  const config = readStackConfig(app.node);
  const stack = new NotesStack(app, `notes-${config.stage}`, { config });
  applyNagChecks(app);
  return { app, stack, template: Template.fromStack(stack) };
}

/** The value, or a failed test that says what was missing. */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Missing: ${what}`);
  return value;
}

export type Resource = { Type: string; Properties: Record<string, unknown>; [key: string]: unknown };

export function resourcesOfType(template: Template, type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

/** Lambda functions by FunctionName (only the ones with a name: ours). */
export function functionsByName(template: Template): Map<string, { logicalId: string; resource: Resource }> {
  const byName = new Map<string, { logicalId: string; resource: Resource }>();
  for (const [logicalId, resource] of Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'))) {
    const name = resource.Properties.FunctionName;
    if (typeof name === 'string') byName.set(name, { logicalId, resource });
  }
  return byName;
}

export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

export const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** Every statement of the policies attached to the function's role. */
export function statementsOfFunction(template: Template, functionName: string): Statement[] {
  const fn = functionsByName(template).get(functionName);
  if (!fn) throw new Error(`No function ${functionName}`);
  const roleArn = fn.resource.Properties.Role as { 'Fn::GetAtt': [string, string] };
  const roleId = roleArn['Fn::GetAtt'][0];
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) =>
      asList(policy.Properties.Roles as unknown[]).some(
        (role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId }),
      ),
    )
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

export function actionsOf(statements: Statement[]): string[] {
  return statements.filter((s) => s.Effect === 'Allow').flatMap((s) => asList(s.Action));
}

/** `{ 'Fn::GetAtt': [logicalId, attribute] }` -> logicalId: which resource an ARN, name or URL refers to. */
export function getAttLogicalId(arn: unknown): string | undefined {
  const getAtt = (arn as { 'Fn::GetAtt'?: [string, string] })?.['Fn::GetAtt'];
  return getAtt?.[0];
}
