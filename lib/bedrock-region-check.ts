import { Aws, CfnRule, Fn, Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { PROFILE_DESTINATION_REGIONS, parseModelId } from './bedrock-model-arns.ts';

/**
 * The Regions a model ID can be invoked from, or undefined where any Region will do. A geographic
 * inference profile (`us.`, `eu.`, ...) is offered only in the Regions of its geography: deployed
 * elsewhere, the stack deploys and the first Insights or Ask call fails (ValidationException). A
 * `global.` profile or a plain model ID is not limited here (a model missing from a Region is a
 * different error, which Bedrock's own message names).
 */
export function regionsServing(modelId: string, profileRegions?: string[]): readonly string[] | undefined {
  const { profile } = parseModelId(modelId);
  if (!profile || profile === 'global') return undefined;
  return profileRegions ?? PROFILE_DESTINATION_REGIONS[profile];
}

function mismatch(modelId: string, region: string, regions: readonly string[]): string {
  return (
    `Bedrock model "${modelId}" is a cross-Region inference profile offered only in ${regions.join(', ')}; ` +
    `this stack deploys to ${region}. Choose the profile of this Region's geography ` +
    `(-c bedrockModelIds=<eu.|apac.|global.>...) or deploy to one of those Regions.`
  );
}

/**
 * Refuses a model that cannot be invoked from the stack's Region: at synth when the Region is known
 * (`env` or CDK_DEFAULT_REGION), and in any case at deployment, before any resource is made, through a
 * CloudFormation rule on AWS::Region (the stack is environment-agnostic).
 */
export function requireModelsServedInRegion(
  scope: IConstruct,
  modelIds: string[],
  profileRegions?: string[],
  knownRegion: string | undefined = process.env.CDK_DEFAULT_REGION,
): void {
  for (const modelId of modelIds) {
    const problem = onDemandProblem(modelId);
    if (problem) throw new Error(problem);
  }
  const stackRegion = Stack.of(scope).region;
  const region = Token.isUnresolved(stackRegion) ? knownRegion : stackRegion;
  modelIds.forEach((modelId, index) => {
    const regions = regionsServing(modelId, profileRegions);
    if (!regions) return;
    if (region && !regions.includes(region)) throw new Error(mismatch(modelId, region, regions));
    new CfnRule(scope, `BedrockModel${index}Region`, {
      assertions: [
        {
          assert: Fn.conditionContains([...regions], Aws.REGION),
          assertDescription: mismatch(modelId, 'a Region outside that list', regions),
        },
      ],
    });
  });
}

/**
 * Anthropic's Claude models from 3.7 on (Claude 3.7 Sonnet, the Claude 4 family and later) cannot be
 * invoked by their bare model ID with on-demand throughput: Bedrock answers ValidationException
 * ("Retry your request with the ID or ARN of an inference profile") on every call, so every Insights,
 * artifact and Ask request would fail after a deployment that looked fine. Older Claude models
 * (3 Haiku, 3.5 Sonnet) still take their bare IDs in the Regions that serve them.
 */
const PROFILE_ONLY_MODEL =
  /^anthropic\.claude-(?:3-7-|(?:sonnet|opus|haiku)-(?:[4-9]|\d{2,})|[4-9]-|\d{2,}-)/;

/** Why `modelId` cannot be invoked as configured, or undefined when it can (as far as is known here). */
export function onDemandProblem(modelId: string): string | undefined {
  if (parseModelId(modelId).profile || !PROFILE_ONLY_MODEL.test(modelId)) return undefined;
  return (
    `Bedrock model "${modelId}" cannot be invoked on demand by its model ID: Anthropic's models from ` +
    `Claude 3.7 on are invoked through an inference profile. Use "us.${modelId}" (or eu., apac., ` +
    `global.: the geography of the deploy Region) in -c bedrockModelIds.`
  );
}
