import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, type ISource, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { PUBLISHED_DOC_CONTENT_TYPES } from '../../src/published-docs.ts';
import { repositoryRoot } from '../paths.ts';
import { acknowledgeDeploymentHandler, acknowledgeStaticDistribution, siteBucket } from './static-site.ts';

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
    this.bucket = siteBucket(this, props.accessLogsBucket, 'docs-bucket/');

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
    acknowledgeStaticDistribution(
      this.distribution,
      'Public documentation of an open-source API (contract and agent skill files)',
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
      acknowledgeDeploymentHandler(this, deployment, this.bucket);
    }
  }
}
