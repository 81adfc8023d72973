import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlertsProps {
  stage: string;
  /** Subscribed by email when given; other subscribers (chat, paging) can be added to the topic. */
  alarmEmail?: string;
}

/**
 * Where every alarm goes: an SNS topic that exists whether or not an address is configured, so an
 * operator can subscribe anything to it after deployment and no alarm is left without an action.
 */
export class Alerts extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: AlertsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', {
      topicName: `notes-${props.stage}-alarms`,
      enforceSSL: true,
    });
    // Not KMS-encrypted: CloudWatch cannot publish to a topic under the AWS-managed SNS key, and the
    // messages carry only alarm names and states.
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
  }

  /** The alarm notifies the topic when it fires and when it is back to OK. */
  notify(alarm: Alarm): Alarm {
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    return alarm;
  }
}
