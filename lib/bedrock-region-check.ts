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
