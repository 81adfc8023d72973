import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlertsProps {
  stage: string;
  /** Without an address there is no topic: the alarms still show in the CloudWatch console. */
  alarmEmail?: string;
}

/** Where alarms go: an SNS topic with an email subscription, when an address is configured. */
export class Alerts extends Construct {
  readonly topic?: Topic;

  constructor(scope: Construct, id: string, props: AlertsProps) {
    super(scope, id);
    if (!props.alarmEmail) return;
    this.topic = new Topic(this, 'Topic', {
      topicName: `notes-${props.stage}-alarms`,
      enforceSSL: true,
    });
    // Not KMS-encrypted: CloudWatch cannot publish to a topic under the AWS-managed SNS key, and the
    // messages carry only alarm names and states.
    this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
  }
}
