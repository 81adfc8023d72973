import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { apiRoutes, type OperationId } from '../../src/routes.ts';
import {
  asList,
  type BuiltApp,
  buildNotesApp,
  defined,
  functionsByName,
  getAttLogicalId,
  resourcesOfType,
  STAGE,
  statementsOfFunction,
} from './support.ts';

const built = buildNotesApp();
const { template, stack } = built;
const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);
const webBucket = logicalId(stack.webApp.bucket);
const distributionConfig = defined(
  resourcesOfType(template, 'AWS::CloudFront::Distribution')[logicalId(stack.webApp.distribution)],
  'the web app distribution',
).Properties.DistributionConfig as Record<string, unknown>;

function headersPolicy(): Record<string, unknown> {
  const behavior = distributionConfig.DefaultCacheBehavior as Record<string, unknown>;
  const policyId = (behavior.ResponseHeadersPolicyId as { Ref: string }).Ref;
  const policy = defined(
    resourcesOfType(template, 'AWS::CloudFront::ResponseHeadersPolicy')[policyId],
    'policy',
  );
  return policy.Properties.ResponseHeadersPolicyConfig as Record<string, unknown>;
}

/** The app's configuration (`/app/config.json`) as the stack stages it for its deployment. */
function stagedConfig(app: BuiltApp): Record<string, unknown> {
  const staged = readdirSync(app.app.outdir)
    .map((entry) => join(app.app.outdir, entry, 'app', 'config.json'))
    .filter((file) => existsSync(file));
  expect(staged).toHaveLength(1);
  return JSON.parse(readFileSync(staged[0] ?? '', 'utf8')) as Record<string, unknown>;
}

/** CloudFormation values with tokens, flattened to text (Fn::Join parts joined, references named). */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(text).join(join[0]);
  return JSON.stringify(value);
}

describe('the web app on AWS', () => {
  it('is a private bucket behind CloudFront with origin access control, HTTPS, and index.html at /', () => {
    const [origin] = distributionConfig.Origins as Array<Record<string, unknown>>;
    expect(origin?.OriginAccessControlId).toBeDefined();
    expect(getAttLogicalId(origin?.DomainName)).toBe(webBucket);
    expect(distributionConfig.DefaultRootObject).toBe('index.html');
    const behavior = distributionConfig.DefaultCacheBehavior as Record<string, unknown>;
    expect(behavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD']);
  });

  it('compresses the app’s script and stylesheet at the edge (gzip and brotli, as the local runtime does)', () => {
    const behavior = distributionConfig.DefaultCacheBehavior as Record<string, unknown>;
    expect(behavior.Compress).toBe(true);
    // CloudFront compresses only what the cache key keeps apart by encoding: the managed
    // CachingOptimized policy (658327ea-…) does, for gzip and brotli.
    expect(behavior.CachePolicyId).toBe('658327ea-f89d-4fab-a63d-7e88639e58f6');
  });

  it('sends a strict Content-Security-Policy: own scripts and styles only, the API and data bucket only, no framing', () => {
    const security = headersPolicy().SecurityHeadersConfig as Record<string, Record<string, unknown>>;
    const csp = text(security.ContentSecurityPolicy?.ContentSecurityPolicy);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    // connect-src names the API endpoint and the data bucket's regional domain, by reference.
    expect(csp).toContain(
      `connect-src 'self' {"Fn::GetAtt":["${logicalId(stack.api.httpApi)}","ApiEndpoint"]} https://`,
    );
    expect(csp).toContain(`"Fn::GetAtt":["${logicalId(stack.storage.dataBucket)}","RegionalDomainName"]`);
    expect(security.ContentSecurityPolicy?.Override).toBe(true);
    expect(security.ContentTypeOptions).toEqual({ Override: true });
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(security.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
    expect(security.StrictTransportSecurity).toMatchObject({ Override: true, IncludeSubdomains: true });
  });

  it('deploys the page at / and at the OAuth callback, never cached, and the hashed assets cached for a year', () => {
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: webBucket },
      SystemMetadata: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' },
      DistributionPaths: ['/*'],
    });
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: webBucket },
      DestinationBucketKeyPrefix: 'app/assets/',
      SystemMetadata: Match.objectLike({ 'cache-control': 'public, max-age=31536000, immutable' }),
    });
    // The staged page data: index.html and app/callback with the same page.
    const staged = readdirSync(built.app.outdir).filter((entry) => entry.startsWith('asset.'));
    const pages = staged
      .flatMap((entry) =>
        ['index.html', join('app', 'callback')].map((name) => join(built.app.outdir, entry, name)),
      )
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file, 'utf8'));
    expect(pages).toHaveLength(2);
    expect(pages[0]).toBe(pages[1]);
    expect(pages[0]).toMatch(/<script type="module" src="\/app\/assets\/app-[A-Z0-9]+\.js">/);
  });

  it('tells the app the API URL as its API, issuer and resource, and its public client ID', () => {
    const deployments = Object.values(resourcesOfType(template, 'Custom::CDKBucketDeployment'));
    const config = deployments.find(
      (deployment) =>
        JSON.stringify(deployment.Properties.DestinationBucketName) === JSON.stringify({ Ref: webBucket }) &&
        deployment.Properties.SourceMarkers !== undefined,
    );
    const markers = JSON.stringify(defined(config, 'the config deployment').Properties.SourceMarkers);
    expect(markers).toContain(`"Fn::GetAtt":["${logicalId(stack.api.httpApi)}","ApiEndpoint"]`);
    const json = stagedConfig(built);
    expect(json.client_id).toBe('notes-web');
    expect(json.scopes).toEqual(['notes:read', 'notes:write', 'notes:process']);
    // The URLs are deploy-time values, filled in from the markers.
    expect(String(json.api_base_url)).toMatch(/^<<marker:/);
    expect(String(json.resource)).toMatch(/^<<marker:.*\/v1$/);
  });

  it('tells the app the trash period the functions are given: 30 days by default, or the context trashDays', () => {
    expect(stagedConfig(built).trash_days).toBe(30);
    // As `-c trashDays=14` gives it: text, read as the number it stands for.
    const shorter = buildNotesApp({ trashDays: '14' });
    expect(stagedConfig(shorter).trash_days).toBe(14);
    const retention = defined(
      functionsByName(shorter.template).get(`notes-${STAGE}-applyRetention`),
      'the applyRetention function',
    );
    const variables = (retention.resource.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(variables.NOTES_TRASH_DAYS).toBe('14');
  });

  it('makes every REST function answer the app origin (CORS), and the preflight function needs nothing else', () => {
    const functions = functionsByName(template);
    const origin = {
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(stack.webApp.distribution), 'DomainName'] }]],
    };
    for (const operationId of [...(Object.keys(apiRoutes) as OperationId[]), 'restPreflight']) {
      const fn = defined(functions.get(`notes-${STAGE}-${operationId}`), operationId);
      const environment = (fn.resource.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(environment.NOTES_WEB_APP_URL, operationId).toEqual(origin);
    }
    const actions = statementsOfFunction(template, `notes-${STAGE}-restPreflight`).flatMap((statement) =>
      asList(statement.Action),
    );
    expect(
      actions.filter((action) => !String(action).startsWith('logs:') && !String(action).startsWith('xray:')),
    ).toEqual([]);
  });
});
