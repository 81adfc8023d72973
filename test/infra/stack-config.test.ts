import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { readStackConfig } from '../../lib/config.ts';

const configOf = (context: Record<string, unknown>) => readStackConfig(new App({ context }).node);

describe('stack configuration from CDK context', () => {
  it('has safe defaults: stage dev, 30-day logs, deletion protection on, no alarm email', () => {
    expect(configOf({})).toEqual({
      stage: 'dev',
      logRetentionDays: 30,
      deletionProtection: true,
      uploadCorsOrigins: ['*'],
      transcribeLanguageCode: 'en-US',
      bedrockModelIds: ['us.anthropic.claude-sonnet-4-6'],
      apiThrottle: { rateLimit: 50, burstLimit: 100 },
      workerMaxConcurrency: { transcription: 10, generation: 5 },
      mcpAllowedOrigins: [],
      trashDays: 30,
    });
  });

  it('reads -c key=value strings as the types they stand for', () => {
    const config = configOf({
      stage: 'prod',
      logRetentionDays: '90',
      deletionProtection: 'false',
      uploadCorsOrigins: 'https://a.example, https://b.example',
      bedrockModelIds: '["model-a","model-b"]',
      bedrockProfileRegions: 'eu-west-1,eu-central-1',
      apiThrottleRate: '10',
      alarmEmail: 'ops@example.com',
      mcpAllowedOrigins: 'http://localhost:6274, https://app.example.com',
      trashDays: '14',
    });
    expect(config).toMatchObject({
      stage: 'prod',
      logRetentionDays: 90,
      deletionProtection: false,
      uploadCorsOrigins: ['https://a.example', 'https://b.example'],
      bedrockModelIds: ['model-a', 'model-b'],
      bedrockProfileRegions: ['eu-west-1', 'eu-central-1'],
      apiThrottle: { rateLimit: 10, burstLimit: 100 },
      alarmEmail: 'ops@example.com',
      mcpAllowedOrigins: ['http://localhost:6274', 'https://app.example.com'],
      trashDays: 14,
    });
  });

  it('refuses values that would fail later, in AWS, with a message naming the key', () => {
    expect(() => configOf({ stage: 'Prod_1' })).toThrow(/context stage/);
    expect(() => configOf({ logRetentionDays: '31' })).toThrow(/context logRetentionDays/);
    expect(() => configOf({ deletionProtection: 'yes' })).toThrow(/context deletionProtection/);
    expect(() => configOf({ uploadCorsOrigins: [] })).toThrow(/context uploadCorsOrigins/);
    expect(() => configOf({ mcpAllowedOrigins: '*' })).toThrow(/context mcpAllowedOrigins/);
    expect(() => configOf({ mcpAllowedOrigins: 'https://app.example.com/' })).toThrow(
      /context mcpAllowedOrigins/,
    );
    // Lambda takes 2 to 1000 as an SQS event source's maximum concurrency.
    expect(() => configOf({ transcriptionMaxConcurrency: '1' })).toThrow(
      /context transcriptionMaxConcurrency/,
    );
    expect(() => configOf({ generationMaxConcurrency: 1001 })).toThrow(/context generationMaxConcurrency/);
    expect(() => configOf({ generationMaxConcurrency: '2.5' })).toThrow(/context generationMaxConcurrency/);
    expect(() => configOf({ trashDays: '0' })).toThrow(/context trashDays/);
    expect(() => configOf({ trashDays: 3651 })).toThrow(/context trashDays/);
  });
});
