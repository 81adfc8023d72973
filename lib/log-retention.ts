import { Aspects, CfnResource, type IAspect, Names, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnLogGroup, LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';

/**
 * Every log group of the stack keeps its logs for `retention`, including the logs of the functions
 * CDK adds by itself (S3 notifications, bucket auto-delete, BucketDeployment). A function without a
 * log group of its own gets one here: otherwise Lambda creates `/aws/lambda/<name>` on its first run,
 * outside the stack, keeping logs forever.
 */
export function retainAllLogs(stack: Stack, retention: RetentionDays): void {
  Aspects.of(stack).add(new RetainAllLogs(retention));
}

class RetainAllLogs implements IAspect {
  constructor(private readonly retention: RetentionDays) {}

  visit(node: IConstruct): void {
    if (node instanceof CfnLogGroup) {
      node.retentionInDays = this.retention;
    } else if (isLambdaFunction(node) && !hasLogGroup(node)) {
      const stack = Stack.of(node);
      const id = `${Names.uniqueId(node)}Logs`;
      // Aspects run again on every synthesis of the same app.
      if (stack.node.tryFindChild(id)) return;
      const logGroup = new LogGroup(stack, id, {
        retention: this.retention,
        // Named by CloudFormation, so nothing blocks the next deployment once the stack is gone.
        removalPolicy: RemovalPolicy.DESTROY,
      });
      node.addPropertyOverride('LoggingConfig.LogGroup', logGroup.logGroupName);
    }
  }
}

/** CDK's custom resource providers are plain CfnResources of this type, not CfnFunctions. */
function isLambdaFunction(node: IConstruct): node is CfnResource {
  return node instanceof CfnResource && node.cfnResourceType === CfnFunction.CFN_RESOURCE_TYPE_NAME;
}

/**
 * Its logging configuration names one, or the stack creates the group Lambda writes to by default
 * (what CDK's `useCdkManagedLogGroup` flag does for the functions CDK adds, such as BucketDeployment's).
 */
function hasLogGroup(fn: CfnResource): boolean {
  if (fn instanceof CfnFunction && fn.loggingConfig !== undefined) {
    // A token stands for a whole logging configuration someone built deliberately: leave it alone.
    return !('logGroup' in fn.loggingConfig) || fn.loggingConfig.logGroup !== undefined;
  }
  const stack = Stack.of(fn);
  const defaultName = JSON.stringify(stack.resolve(`/aws/lambda/${fn.ref}`));
  return stack.node
    .findAll()
    .some(
      (node) =>
        node instanceof CfnLogGroup && JSON.stringify(stack.resolve(node.logGroupName)) === defaultName,
    );
}
