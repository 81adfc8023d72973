import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/**
 * Where each system-defined cross-Region inference profile routes (its destination Regions), by ID
 * prefix, as AWS's "Supported Regions and models for inference profiles" pages listed them when
 * checked (docs/deploy.md, "Bedrock"). A profile may route to fewer Regions than its geography has;
 * granting the geography's Regions covers every Claude profile of that prefix. Context
 * `bedrockProfileRegions` replaces these when AWS adds a Region. `global.` profiles route to every
 * commercial Region and have their own ARN form (below).
 */
export const PROFILE_DESTINATION_REGIONS: Record<string, readonly string[]> = {
  us: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
  'us-gov': ['us-gov-east-1', 'us-gov-west-1'],
  ca: ['ca-central-1', 'ca-west-1'],
  eu: [
    'eu-central-1',
    'eu-central-2',
    'eu-north-1',
    'eu-south-1',
    'eu-south-2',
    'eu-west-1',
    'eu-west-2',
    'eu-west-3',
  ],
  apac: [
    'ap-east-2',
    'ap-northeast-1',
    'ap-northeast-2',
    'ap-northeast-3',
    'ap-south-1',
    'ap-south-2',
    'ap-southeast-1',
    'ap-southeast-2',
    'ap-southeast-3',
    'ap-southeast-4',
    'ap-southeast-5',
    'ap-southeast-7',
  ],
  jp: ['ap-northeast-1', 'ap-northeast-3'],
  au: ['ap-southeast-2', 'ap-southeast-4'],
};

export interface ModelTarget {
  /** The model the functions are configured with: a model ID or an inference profile ID. */
  modelId: string;
  /** Cross-Region profile prefix (`us`, `eu`, `global`, ...), or undefined for a plain model ID. */
  profile?: string;
  /** The foundation model behind it: the ID without the profile prefix. */
  foundationModelId: string;
}

/** `us.anthropic.claude-sonnet-4-6` → profile `us`, model `anthropic.claude-sonnet-4-6`. */
export function parseModelId(modelId: string): ModelTarget {
  const match = /^([a-z]+(?:-[a-z]+)?)\.(.+\..+)$/.exec(modelId);
  const prefix = match?.[1];
  const rest = match?.[2];
  if (prefix && rest && (prefix === 'global' || prefix in PROFILE_DESTINATION_REGIONS)) {
    return { modelId, profile: prefix, foundationModelId: rest };
  }
  return { modelId, foundationModelId: modelId };
}

/**
 * The statements that let a function invoke (InvokeModel, Converse; with streaming) exactly the
 * configured models, following AWS's IAM guidance for inference profiles:
 * - a model ID: its foundation-model ARN in the stack's Region;
 * - a geographic profile (`us.`, `eu.`, ...): the profile's ARN in the stack's Region, and the
 *   foundation model in every destination Region, usable only through that profile
 *   (`bedrock:InferenceProfileArn`);
 * - a `global.` profile: the profile's ARN, the foundation model in the stack's Region and the
 *   Region-less foundation-model ARN (`arn:aws:bedrock:::foundation-model/<id>`), both only through
 *   the profile.
 * `destinationRegions` (context `bedrockProfileRegions`) replaces the defaults above.
 */
export function modelInvocationStatements(
  scope: IConstruct,
  modelIds: string[],
  destinationRegions?: string[],
): PolicyStatement[] {
  const stack = Stack.of(scope);
  const actions = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];
  const foundationModel = (id: string, region: string) =>
    stack.formatArn({
      service: 'bedrock',
      region,
      // Foundation models belong to no account.
      account: '',
      resource: 'foundation-model',
      resourceName: id,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  const statements: PolicyStatement[] = [];
  const direct: string[] = [];
  for (const target of modelIds.map(parseModelId)) {
    if (!target.profile) {
      direct.push(foundationModel(target.foundationModelId, stack.region));
      continue;
    }
    const profileArn = stack.formatArn({
      service: 'bedrock',
      resource: 'inference-profile',
      resourceName: target.modelId,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    direct.push(profileArn);
    const regions =
      target.profile === 'global'
        ? [stack.region, '']
        : (destinationRegions ?? PROFILE_DESTINATION_REGIONS[target.profile] ?? []);
    statements.push(
      new PolicyStatement({
        actions,
        resources: regions.map((region) => foundationModel(target.foundationModelId, region)),
        conditions: { StringEquals: { 'bedrock:InferenceProfileArn': profileArn } },
      }),
    );
  }
  return [new PolicyStatement({ actions, resources: direct }), ...statements];
}
