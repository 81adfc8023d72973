import { Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge, wildcardResourceFinding } from '../nag.ts';
import type { NotesFunction } from './notes-function.ts';

const TRANSCRIBE = 'transcribe.amazonaws.com';

/** Keys of src/domain/object-keys.ts: the recording (`audio`) and Transcribe's output per attempt. */
export const TRANSCRIBE_MEDIA_KEYS = 'accounts/*/notes/*/audio';
export const TRANSCRIBE_OUTPUT_KEYS = 'accounts/*/notes/*/transcribe-output-*.json';

export interface TranscribeDataAccessProps {
  /** The data bucket: recordings in, Transcribe output out. S3-managed encryption, so no key grants. */
  bucket: IBucket;
}

/**
 * The role Amazon Transcribe assumes for job queueing (JobExecutionSettings.DataAccessRoleArn): a job
 * past the account's concurrent-job quota waits in Transcribe's queue and, when it runs, reads the
 * recording and writes its output with this role rather than with the caller's permissions. It may
 * read recordings and write output documents, nothing else, and only Transcribe jobs of this account
 * and Region may assume it (the confused-deputy conditions AWS recommends).
 */
export class TranscribeDataAccess extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: TranscribeDataAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.role = new Role(this, 'Role', {
      description: 'Assumed by Amazon Transcribe to read recordings and write transcripts of queued jobs',
      assumedBy: new ServicePrincipal(TRANSCRIBE, {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          // Transcribe's documented form: any of its resources in this account and Region.
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'transcribe', resource: '*' }) },
        },
      }),
    });

    const media = props.bucket.arnForObjects(TRANSCRIBE_MEDIA_KEYS);
    const output = props.bucket.arnForObjects(TRANSCRIBE_OUTPUT_KEYS);
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [media] }));
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [output] }));
    acknowledge(
      this,
      wildcardResourceFinding(this, media),
      'Recordings are accounts/<account>/notes/<note>/audio, one per note: the ARN can only name that pattern',
    );
    acknowledge(
      this,
      wildcardResourceFinding(this, output),
      'Transcribe output is accounts/<account>/notes/<note>/transcribe-output-<attempt>.json: the ARN can only name that pattern',
    );
  }

  /**
   * Lets the function hand this role to Transcribe (iam:PassRole, to Transcribe only) and tells it the
   * role's ARN, which turns job queueing on (src/adapters/transcribe/transcribe-jobs.ts).
   */
  allowJobsStartedBy(fn: NotesFunction): void {
    fn.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': TRANSCRIBE } },
      }),
    );
    fn.function.addEnvironment('NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN', this.role.roleArn);
  }
}
