import type { Stack } from 'aws-cdk-lib';
import { acknowledge } from './nag.ts';

/** Construct ID of the function CDK adds to configure S3 event notifications (aws-s3 BucketNotifications). */
const BUCKET_NOTIFICATIONS_HANDLER = 'BucketNotificationsHandler050a0587b7544547bf325f094a3db834';

/**
 * Acknowledges cdk-nag findings on functions CDK adds to the stack by itself, whose permissions
 * aws-cdk-lib fixes (BucketDeployment's handler is acknowledged in lib/constructs/docs-site.ts).
 */
export function acknowledgeFrameworkFunctions(stack: Stack): void {
  const notificationsHandler = stack.node.tryFindChild(BUCKET_NOTIFICATIONS_HANDLER);
  if (notificationsHandler) {
    acknowledge(
      notificationsHandler,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'CDK S3 notifications handler: runs once per deployment to set the upload notification, CDK fixes its role',
    );
  }
}
