import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultStackSynthesizer, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, type ISource, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { PUBLISHED_DOC_CONTENT_TYPES } from '../../src/published-docs.ts';
import { acknowledge, wildcardResourceFinding } from '../nag.ts';
import { repositoryRoot } from '../paths.ts';

export interface DocsSiteProps {
  accessLogsBucket: IBucket;
  /** Folder of public docs files (llms.txt, llms-full.txt, skill.md, skill.json), deployed if it exists. */
  publicDocsDir?: string;
}

/**
 * The public docs files ({docs_url} in the spec): a private bucket behind CloudFront (origin access
 * control, HTTPS only, security headers). Serves the contract at `/openapi.yaml` and whatever
 * `docs/public/` holds when it exists.
 */
export class DocsSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<id>.cloudfront.net` */
  readonly url: string;

  constructor(scope: Construct, id: string, props: DocsSiteProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'docs-bucket/',
      // Every file here is rebuilt from the repository on deploy: nothing to keep.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Notes service public docs (openapi.yaml, llms.txt, skill files)',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      // North America and Europe edges only: the cheapest class, and small static files.
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
    acknowledge(
      this.distribution,
      'CFR1',
      'Public documentation of an open-source API (contract and agent skill files): no reason to restrict by country',
    );
    acknowledge(
      this.distribution,
      'CFR2',
      'Static public files behind origin access control, GET/HEAD only, no forms or queries: a WAF would have nothing to filter',
    );
    acknowledge(
      this.distribution,
      'CFR3',
      'Standard logs need an ACL-enabled log bucket; the files are public, and CloudFront request metrics cover their use',
    );
    acknowledge(
      this.distribution,
      'CFR4',
      'Served on the default *.cloudfront.net certificate, whose TLS policy CloudFront fixes; set TLSv1.2_2021 when adding a custom domain',
    );

    // One deployment per content type: S3 stores each file with the type (and charset) it is served
    // with. Each syncs only its extension, so pruning one never removes another's files.
    const publicDocsDir = props.publicDocsDir ?? join(repositoryRoot, 'docs', 'public');
    const publicDocs: ISource[] = existsSync(publicDocsDir) ? [Source.asset(publicDocsDir)] : [];
    for (const [extension, contentType] of Object.entries(PUBLISHED_DOC_CONTENT_TYPES)) {
      const sources: ISource[] =
        extension === '.yaml'
          ? // Served at /openapi.yaml: the file at the repository root is the contract.
            [
              Source.data('openapi.yaml', readFileSync(join(repositoryRoot, 'openapi.yaml'), 'utf8')),
              ...publicDocs,
            ]
          : publicDocs;
      if (sources.length === 0) continue;
      const deployment = new BucketDeployment(this, `Files${extension.slice(1).toUpperCase()}`, {
        sources,
        destinationBucket: this.bucket,
        exclude: ['*'],
        include: [`*${extension}`],
        contentType,
        distribution: this.distribution,
        distributionPaths: ['/*'],
        // Files removed from the repository disappear from the site.
        prune: true,
      });
      this.acknowledgeDeploymentHandler(deployment);
    }
  }

  /**
   * BucketDeployment's handler is CDK's own singleton function (Python, fixed permissions): it copies
   * the docs asset from the CDK assets bucket into the docs bucket, prunes it and invalidates CloudFront.
   */
  private acknowledgeDeploymentHandler(deployment: BucketDeployment): void {
    const handler = deployment.handlerRole.node.scope;
    if (!handler) return;
    const qualifier =
      Stack.of(this).node.tryGetContext('@aws-cdk/core:bootstrapQualifier') ??
      DefaultStackSynthesizer.DEFAULT_QUALIFIER;
    const reasons: Record<string, string> = {
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
        'CDK BucketDeployment handler: CDK attaches the basic execution policy so its function can write its logs',
      'IAM5[Action::s3:GetObject*]':
        'CDK BucketDeployment reads the docs asset and the current docs bucket objects',
      'IAM5[Action::s3:GetBucket*]':
        'CDK BucketDeployment reads bucket settings of the asset and docs buckets',
      'IAM5[Action::s3:List*]':
        'CDK BucketDeployment lists the docs bucket to prune files removed from the repository',
      'IAM5[Action::s3:DeleteObject*]':
        'CDK BucketDeployment prunes docs files that are no longer in the repository',
      'IAM5[Action::s3:Abort*]':
        'CDK BucketDeployment aborts its own failed multipart copies into the docs bucket',
      [`IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-${qualifier}-assets-<AWS::AccountId>-<AWS::Region>/*]`]:
        'CDK BucketDeployment reads the docs asset zip from the CDK bootstrap assets bucket (asset keys are hashes)',
      [wildcardResourceFinding(this, this.bucket.arnForObjects('*'))]:
        'CDK BucketDeployment writes every docs file: the whole docs bucket holds nothing but the deployed files',
      'IAM5[Resource::*]':
        'CDK BucketDeployment creates a CloudFront invalidation; cloudfront:CreateInvalidation is granted on "*" by CDK',
      L1: 'CDK BucketDeployment handler runtime is chosen by aws-cdk-lib (Python); it moves with aws-cdk-lib upgrades',
    };
    for (const [finding, reason] of Object.entries(reasons)) acknowledge(handler, finding, reason);
  }
}
