import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../lib/paths.ts';
import { apiRoutes, eventWorkers, publicRoutes, queueWorkers } from '../../src/routes.ts';
import { buildNotesApp, defined, functionsByName, resourcesOfType, STAGE } from './support.ts';

const { template } = buildNotesApp();
const routes = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Route'));
const integrations = resourcesOfType(template, 'AWS::ApiGatewayV2::Integration');
const functions = functionsByName(template);

/** The function a route invokes: route -> integration -> IntegrationUri (the function ARN). */
function functionLogicalIdOfRoute(routeKey: string): string | undefined {
  const route = routes.find((r) => r.Properties.RouteKey === routeKey);
  const target = route?.Properties.Target as { 'Fn::Join': [string, unknown[]] } | undefined;
  const integrationRef = target?.['Fn::Join'][1].find((part) => typeof part === 'object') as
    | { Ref: string }
    | undefined;
  const integration = integrationRef && integrations[integrationRef.Ref];
  const uri = integration?.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] } | undefined;
  return uri?.['Fn::GetAtt'][0];
}

describe('the API', () => {
  it.each(Object.entries(apiRoutes))(
    '%s has exactly one route, to its own function notes-<stage>-<operationId>',
    (operationId, route) => {
      const routeKey = `${route.method} ${route.path}`;
      expect(routes.filter((r) => r.Properties.RouteKey === routeKey)).toHaveLength(1);
      const fn = functions.get(`notes-${STAGE}-${operationId}`);
      expect(fn).toBeDefined();
      expect(functionLogicalIdOfRoute(routeKey)).toBe(fn?.logicalId);
    },
  );

  it('has no route other than those of the route table (REST operations, MCP and OAuth endpoints)', () => {
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(
      [
        ...Object.values(apiRoutes).map((r) => `${r.method} ${r.path}`),
        ...Object.values(publicRoutes).flatMap((r) => r.endpoints.map((e) => `${e.method} ${e.path}`)),
      ].sort(),
    );
  });

  it('has no authorizer and no API Gateway CORS: the handlers check credentials and answer preflights', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    for (const route of routes) expect(route.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    const [api] = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Api'));
    // With a CorsConfiguration, API Gateway would answer preflights itself and never reach the handlers.
    expect(api?.Properties.CorsConfiguration).toBeUndefined();
  });

  it.each([
    ['/mcp', 'mcp'],
    ['/oauth/register', 'oauthRegister'],
    ['/oauth/token', 'oauthToken'],
    ['/oauth/revoke', 'oauthRevoke'],
    ['/.well-known/oauth-protected-resource', 'oauthMetadata'],
    ['/.well-known/oauth-protected-resource/mcp', 'oauthMetadata'],
    ['/.well-known/oauth-authorization-server', 'oauthMetadata'],
  ])('routes browser preflights (OPTIONS %s) to the function that serves the path, %s', (path, name) => {
    expect(functionLogicalIdOfRoute(`OPTIONS ${path}`)).toBe(
      functions.get(`notes-${STAGE}-${name}`)?.logicalId,
    );
  });

  it('gives /oauth/authorize no preflight route: it is a top-level navigation', () => {
    expect(routes.some((r) => r.Properties.RouteKey === 'OPTIONS /oauth/authorize')).toBe(false);
  });

  it('throttles the default stage and writes JSON access logs without headers', () => {
    const [stage] = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Stage'));
    expect(stage?.Properties.StageName).toBe('$default');
    expect(stage?.Properties.DefaultRouteSettings).toEqual({
      ThrottlingBurstLimit: 100,
      ThrottlingRateLimit: 50,
    });
    const { Format } = defined(stage, 'the stage').Properties.AccessLogSettings as { Format: string };
    const format = JSON.parse(Format) as Record<string, string>;
    expect(format.requestId).toBe('$context.requestId');
    expect(Format).not.toMatch(/authorization|header/i);
  });
});

describe('the functions', () => {
  const handlerFiles = readdirSync(join(repositoryRoot, 'functions'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.replace(/\.ts$/, ''));

  it.each(handlerFiles)('functions/%s.ts has exactly one function', (handler) => {
    const named = [...functions.keys()].filter((name) => name === `notes-${STAGE}-${handler}`);
    expect(named).toHaveLength(1);
  });

  it('end API calls within the 30 s integration limit: 10 s each, 28 s for Ask and MCP (a model call)', () => {
    for (const name of [...Object.keys(apiRoutes), ...Object.keys(publicRoutes)]) {
      const fn = functions.get(`notes-${STAGE}-${name}`);
      expect(fn?.resource.Properties.Timeout, name).toBe(name === 'askWorkspace' || name === 'mcp' ? 28 : 10);
    }
  });

  it('are exactly the handlers of the route table, each with a handler file', () => {
    const expected = [
      ...Object.keys(apiRoutes),
      ...Object.keys(publicRoutes),
      ...Object.keys(queueWorkers),
      ...Object.keys(eventWorkers),
    ];
    const ours = [...functions.keys()]
      .filter((name) => name.startsWith(`notes-${STAGE}-`))
      .map((name) => name.slice(`notes-${STAGE}-`.length));
    expect(ours.sort()).toEqual([...expected].sort());
    expect(handlerFiles.sort()).toEqual([...expected].sort());
  });
});
