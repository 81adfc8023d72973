import { RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type {
  EventWorkerName,
  Needs,
  OperationId,
  PublicRouteName,
  QueueWorkerName,
} from '../../src/routes.ts';
import { handlerEntry } from '../../src/routes.ts';
import { handlerThreads, textEngineOf } from '../bundling.ts';
import type { FunctionSizing } from '../function-sizing.ts';
import { type GrantTargets, grantNeeds } from '../grants.ts';
import { handlerCode } from '../handler-code.ts';
import { acknowledge } from '../nag.ts';

export type HandlerName = OperationId | PublicRouteName | QueueWorkerName | EventWorkerName;

/** What every function of the stack shares. */
export interface SharedFunctionProps {
  stage: string;
  logRetention: RetentionDays;
  /** Settings every handler reads through src/config.ts. */
  environment: Record<string, string>;
  /** What `needs` refers to. */
  grantTargets: GrantTargets;
}

export interface NotesFunctionProps extends FunctionSizing {
  /** The operationId or worker name: the handler file and the function name derive from it. */
  handler: HandlerName;
  /** The handler's entry in src/routes.ts: the function is granted exactly this. */
  needs: Needs;
  shared: SharedFunctionProps;
}

/**
 * One Lambda function per handler file, all built the same way: Node.js 22 on arm64, an esbuild ESM
 * bundle with source maps and chunks, wired for its `needs` and its `NOTES_TEXT_ENGINE` (lib/bundling.ts), its own log group,
 * X-Ray tracing, and a role of its own that starts with nothing but its log group. Grants come from
 * the handler's `needs` (lib/grants.ts).
 */
export class NotesFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: NotesFunctionProps) {
    super(scope, id);
    const { stage, logRetention, environment, grantTargets } = props.shared;
    const functionName = `notes-${stage}-${props.handler}`;

    this.logGroup = new LogGroup(this, 'Logs', {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: logRetention,
      // A retained log group with a fixed name would make the next deployment of this stage fail.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Our own role instead of the default one with AWSLambdaBasicExecutionRole (which may write to
    // every log group of the account): the function may write to its own log group only.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${functionName}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new LambdaFunction(this, 'Function', {
      functionName,
      code: handlerCode(
        handlerEntry(props.handler),
        props.needs,
        textEngineOf(environment),
        handlerThreads[props.handler],
      ),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      role: this.role,
      logGroup: this.logGroup,
      tracing: Tracing.ACTIVE,
      environment,
    });
    grantNeeds(this, this.role, props.needs, grantTargets);

    acknowledge(
      this,
      'IAM5[Resource::*]',
      'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords have no resource type, AWS requires Resource "*"',
    );
    acknowledge(
      this,
      'L1',
      'Node.js 22 is the runtime the service is specified and bundled for (target node22); nodejs24.x after a test run on it',
    );
  }
}
