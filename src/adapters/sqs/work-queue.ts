import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { GenerationRequest, TranscriptionRequest, WorkQueue } from '../../ports/work-queue.ts';

export class SqsWorkQueue implements WorkQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly transcriptionQueueUrl: string,
    private readonly generationQueueUrl: string,
  ) {}

  async requestTranscription(request: TranscriptionRequest): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.transcriptionQueueUrl, MessageBody: JSON.stringify(request) }),
    );
  }

  async requestGeneration(request: GenerationRequest): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.generationQueueUrl, MessageBody: JSON.stringify(request) }),
    );
  }
}
