import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  EventType,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { notesTableDefinition } from '../../src/adapters/dynamodb/table-definition.ts';
import { QueueNotificationDestination } from './queue-notification-destination.ts';

export interface StorageProps {
  deletionProtection: boolean;
  uploadCorsOrigins: string[];
  /** How long S3 server access logs are kept. */
  accessLogRetentionDays: number;
  /** Receives an S3 event for every completed recording upload. */
  uploadsQueue: IQueue;
}

/** The key attribute types of the table definition, in CDK's terms (the codes are DynamoDB's own). */
const attributeTypes = { S: AttributeType.STRING } as const;
const key = (k: { name: string; type: keyof typeof attributeTypes }) => ({
  name: k.name,
  type: attributeTypes[k.type],
});

/**
 * Where the data lives: the single DynamoDB table (notes, jobs, accounts, hashed API keys) and the
 * data bucket (recordings, transcripts), plus a bucket for the S3 server access logs.
 * Both data stores outlive the stack (RemovalPolicy.RETAIN): `cdk destroy` never deletes user data.
 */
export class Storage extends Construct {
  readonly table: TableV2;
  readonly dataBucket: Bucket;
  readonly accessLogsBucket: Bucket;

  constructor(scope: Construct, id: string, props: StorageProps) {
    super(scope, id);
    const { partitionKey, sortKey, globalSecondaryIndexes } = notesTableDefinition;

    this.table = new TableV2(this, 'Table', {
      partitionKey: key(partitionKey),
      sortKey: key(sortKey),
      globalSecondaryIndexes: globalSecondaryIndexes.map((index) => ({
        indexName: index.indexName,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
        projectionType: ProjectionType[index.projectionType],
      })),
      // The definition says PAY_PER_REQUEST; TableV2 spells on-demand this way.
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS-managed key (aws/dynamodb) makes every use of the key visible in CloudTrail.
      encryption: TableEncryptionV2.awsManagedKey(),
      // Records that expire (e.g. pending uploads) carry their deadline in epoch seconds.
      timeToLiveAttribute: 'expires_at_s',
      deletionProtection: props.deletionProtection,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(props.accessLogRetentionDays) }],
      // Audit records: kept when the stack goes, like the data they describe.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.dataBucket = new Bucket(this, 'DataBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Objects are replaced only by re-submitting a note; old versions would be audio kept after deletion.
      versioned: false,
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // Browsers upload recordings straight here with a presigned PUT URL; nothing else is cross-origin.
      cors: [
        {
          allowedMethods: [HttpMethods.PUT],
          allowedOrigins: props.uploadCorsOrigins,
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: 3600,
        },
      ],
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'data-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // An upload starts the work: S3 tells the uploads queue once the recording is complete, and its
    // worker (uploadReceived) queues the transcription. Keys are accounts/<account>/notes/<note>/audio
    // (src/domain/object-keys.ts); the worker parses the event.
    this.dataBucket.addEventNotification(
      EventType.OBJECT_CREATED,
      new QueueNotificationDestination(props.uploadsQueue),
      {
        suffix: '/audio',
      },
    );
  }
}
