import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { APP_PAGE_PATHS, appSecurityHeaders, buildWebApp, webAppConfig } from '../../web/build.ts';
import { acknowledgeDeploymentHandler, acknowledgeStaticDistribution, siteBucket } from './static-site.ts';

export interface WebAppProps {
  accessLogsBucket: IBucket;
  /** The REST API's (and the OAuth issuer's) URL, without a trailing slash. */
  apiUrl: string;
  /** The data bucket: uploads and playback go straight to it through presigned URLs. */
  dataBucket: IBucket;
  /** The app's public OAuth client ID (registered by the service itself). */
  clientId: string;
  /** The trash period (context `trashDays`, the functions' NOTES_TRASH_DAYS), which the app tells people. */
  trashDays: number;
}

/**
 * The web app on AWS: its files in a private bucket behind CloudFront, served with a strict
 * Content-Security-Policy (scripts and styles from the app's origin only; calls to the API and the
 * data bucket only; no framing) and the other security headers the local runtime sends too.
 */
export class WebApp extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<id>.cloudfront.net`: the origin REST allows (CORS) and the OAuth client redirects to. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: WebAppProps) {
    super(scope, id);
    this.bucket = siteBucket(this, props.accessLogsBucket, 'web-app-bucket/');

    const dataOrigin = `https://${props.dataBucket.bucketRegionalDomainName}`;
    const headers = appSecurityHeaders({ connect: [props.apiUrl, dataOrigin], media: [dataOrigin] });
    const responseHeaders = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Notes web app: strict CSP, no framing, no referrer',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: headers['Content-Security-Policy'] ?? '',
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
      customHeadersBehavior: {
        customHeaders: [
          {
            header: 'Cross-Origin-Opener-Policy',
            value: headers['Cross-Origin-Opener-Policy'] ?? 'same-origin',
            override: true,
          },
        ],
      },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Notes web app',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        // Honours each object's Cache-Control: hashed assets for a year, the page and config revalidated.
        // Its cache key includes gzip and brotli, so CloudFront can serve either compressed form.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        // gzip or brotli for the script, stylesheet and page, by the viewer's Accept-Encoding.
        compress: true,
        responseHeadersPolicy: responseHeaders,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
    acknowledgeStaticDistribution(
      this.distribution,
      'The web app (its sign-in is the OAuth server on the API)',
    );

    const files = buildWebApp();
    const page = files.find((file) => file.path === '/index.html');
    if (!page) throw new Error('The web app build made no page');
    const assetsDir = writeAssets(files.filter((file) => file.immutable));
    const config = webAppConfig(props.apiUrl, props.clientId, props.trashDays);

    // Hashed assets: cached for good; pruned under their prefix only, so the pages below stay.
    const byType = new Map<string, string[]>();
    for (const file of files.filter((candidate) => candidate.immutable)) {
      const name = file.path.split('/').pop() ?? '';
      byType.set(file.contentType, [...(byType.get(file.contentType) ?? []), name]);
    }
    let index = 0;
    for (const [contentType, names] of byType) {
      const deployment = new BucketDeployment(this, `Assets${index++}`, {
        sources: [Source.asset(assetsDir)],
        destinationBucket: this.bucket,
        destinationKeyPrefix: 'app/assets/',
        exclude: ['*'],
        include: names,
        contentType,
        cacheControl: [CacheControl.fromString('public, max-age=31536000, immutable')],
        prune: false,
      });
      acknowledgeDeploymentHandler(this, deployment, this.bucket);
    }
    // The page (at / and at the OAuth callback) and its configuration: revalidated on every load.
    const pages = new BucketDeployment(this, 'Pages', {
      sources: [
        Source.data('index.html', page.body.toString('utf8')),
        ...APP_PAGE_PATHS.filter((path) => path !== '/').map((path) =>
          Source.data(path.slice(1), page.body.toString('utf8')),
        ),
      ],
      destinationBucket: this.bucket,
      contentType: page.contentType,
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      prune: false,
    });
    acknowledgeDeploymentHandler(this, pages, this.bucket);
    const settings = new BucketDeployment(this, 'Config', {
      sources: [Source.jsonData('app/config.json', config)],
      destinationBucket: this.bucket,
      contentType: 'application/json',
      cacheControl: [CacheControl.noCache()],
      prune: false,
    });
    acknowledgeDeploymentHandler(this, settings, this.bucket);
  }
}

/** The hashed assets on disk, for a CDK asset (hashed by content, so unchanged builds upload nothing). */
function writeAssets(files: ReturnType<typeof buildWebApp>): string {
  const dir = mkdtempSync(join(tmpdir(), 'notes-web-app-'));
  for (const file of files) {
    const path = join(dir, file.path.split('/').pop() ?? '');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.body);
  }
  return dir;
}
