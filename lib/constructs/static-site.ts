import { DefaultStackSynthesizer, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import type { BucketDeployment } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { acknowledge, wildcardResourceFinding } from '../nag.ts';

/**
 * What the public docs site and the web app share: a private bucket of files rebuilt from the
 * repository on every deploy, behind CloudFront, filled by CDK's BucketDeployment.
 */
export function siteBucket(scope: Construct, accessLogsBucket: IBucket, logPrefix: string): Bucket {
  return new Bucket(scope, 'Bucket', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    serverAccessLogsBucket: accessLogsBucket,
    serverAccessLogsPrefix: logPrefix,
    // Every file here is rebuilt from the repository on deploy: nothing to keep.
    removalPolicy: RemovalPolicy.DESTROY,
    autoDeleteObjects: true,
  });
}

/** cdk-nag findings of a CloudFront distribution in front of static files, with why each is accepted. */
export function acknowledgeStaticDistribution(distribution: Distribution, what: string): void {
  acknowledge(distribution, 'CFR1', `${what}: meant for anyone, anywhere; no reason to restrict by country`);
  acknowledge(
    distribution,
    'CFR2',
    `${what}: static files behind origin access control, GET/HEAD only: a WAF would have nothing to filter`,
  );
  acknowledge(
    distribution,
    'CFR3',
    'Standard logs need an ACL-enabled log bucket; the files are public, and CloudFront request metrics cover their use',
  );
  acknowledge(
    distribution,
    'CFR4',
    'Served on the default *.cloudfront.net certificate, whose TLS policy CloudFront fixes; set TLSv1.2_2021 when adding a custom domain',
  );
}

/**
 * BucketDeployment's handler is CDK's own singleton function (Python, fixed permissions): it copies
 * an asset from the CDK assets bucket into `bucket`, prunes it and invalidates CloudFront.
 */
export function acknowledgeDeploymentHandler(
  scope: Construct,
  deployment: BucketDeployment,
  bucket: IBucket,
): void {
  const handler = deployment.handlerRole.node.scope;
  if (!handler) return;
  const qualifier =
    Stack.of(scope).node.tryGetContext('@aws-cdk/core:bootstrapQualifier') ??
    DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  const reasons: Record<string, string> = {
    'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
      'CDK BucketDeployment handler: CDK attaches the basic execution policy so its function can write its logs',
    'IAM5[Action::s3:GetObject*]': 'CDK BucketDeployment reads the asset and the current site bucket objects',
    'IAM5[Action::s3:GetBucket*]': 'CDK BucketDeployment reads bucket settings of the asset and site buckets',
    'IAM5[Action::s3:List*]':
      'CDK BucketDeployment lists the site bucket to prune files removed from the repository',
    'IAM5[Action::s3:DeleteObject*]':
      'CDK BucketDeployment prunes files that are no longer in the repository',
    'IAM5[Action::s3:Abort*]':
      'CDK BucketDeployment aborts its own failed multipart copies into the site bucket',
    [`IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-${qualifier}-assets-<AWS::AccountId>-<AWS::Region>/*]`]:
      'CDK BucketDeployment reads the asset zip from the CDK bootstrap assets bucket (asset keys are hashes)',
    [wildcardResourceFinding(scope, bucket.arnForObjects('*'))]:
      'CDK BucketDeployment writes every file: the whole site bucket holds nothing but the deployed files',
    'IAM5[Resource::*]':
      'CDK BucketDeployment creates a CloudFront invalidation; cloudfront:CreateInvalidation is granted on "*" by CDK',
    L1: 'CDK BucketDeployment handler runtime is chosen by aws-cdk-lib (Python); it moves with aws-cdk-lib upgrades',
  };
  for (const [finding, reason] of Object.entries(reasons)) acknowledge(handler, finding, reason);
}
