import { Aws } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  type BucketNotificationDestinationConfig,
  BucketNotificationDestinationType,
  type IBucket,
  type IBucketNotificationDestination,
} from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * aws-s3-notifications' SqsDestination, with the queue policy AWS recommends: S3 may send only for
 * this bucket (`aws:SourceArn`) in this account (`aws:SourceAccount`). Bucket names are global, so
 * the account condition keeps a bucket of the same name in another account (after this one is
 * deleted) from writing to the queue. The queue uses SQS-managed encryption: no key policy to add.
 */
export class QueueNotificationDestination implements IBucketNotificationDestination {
  constructor(private readonly queue: IQueue) {}

  bind(_scope: Construct, bucket: IBucket): BucketNotificationDestinationConfig {
    this.queue.grantSendMessages(
      new ServicePrincipal('s3.amazonaws.com', {
        conditions: {
          ArnLike: { 'aws:SourceArn': bucket.bucketArn },
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        },
      }),
    );
    // S3 checks that it may send when the notification is configured: the policy must exist first.
    return {
      arn: this.queue.queueArn,
      type: BucketNotificationDestinationType.QUEUE,
      dependencies: [this.queue],
    };
  }
}
