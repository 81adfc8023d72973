import { type App, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** Runs the cdk-nag AwsSolutions rules when the app synthesizes; an unacknowledged error fails synthesis. */
export function applyNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}

/**
 * Acknowledges one cdk-nag finding on a construct and everything under it. Acknowledge as close to the
 * finding as possible, with a reason that says why this resource is fine as it is.
 */
export function acknowledge(scope: IConstruct, ruleId: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions-${ruleId}`, reason });
}

/**
 * The cdk-nag IAM5 finding ID for a wildcard resource such as `${bucket.bucketArn}/accounts/*`:
 * cdk-nag names it after the resolved CloudFormation expression (`<LogicalId.Arn>/accounts/*`), and
 * cdk-nag 3 acknowledges findings by exact ID only.
 */
export function wildcardResourceFinding(scope: IConstruct, resource: string): string {
  return `IAM5[Resource::${flatten(Stack.of(scope).resolve(resource))}]`;
}

/** Mirrors cdk-nag's flattenCfnReference (utils/flatten-cfn-reference.js), which it does not export. */
function flatten(node: unknown): string {
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
  if (node && typeof node === 'object') {
    const fn = node as Record<string, unknown>;
    if (Array.isArray(fn['Fn::Join'])) {
      const [delimiter, items] = fn['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if (Array.isArray(fn['Fn::GetAtt'])) {
      const [resource, attribute] = fn['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if ('Ref' in fn) return `<${flatten(fn.Ref)}>`;
    if ('Fn::Sub' in fn) return flatten(fn['Fn::Sub']);
  }
  return JSON.stringify(node);
}
