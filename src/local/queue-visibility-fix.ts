/**
 * local-aws-sqs counts a ChangeMessageVisibility as one more receive (its ApproximateReceiveCount
 * goes up by one), which SQS does not. A worker that shortens a failed message's wait
 * (src/workers/sqs-worker.ts) would then see the count jump and the message dead-lettered after
 * fewer receives than the queue's maxReceiveCount. This undoes the extra count on one emulated
 * queue. It relies on two of the emulator's instance members (`newRecord`, which returns the stored
 * message, and `changeVisibility`); test/integration/worker-retry-backoff.test.ts checks the result.
 */
interface StoredMessage {
  record: { attributes: Record<string, string | undefined> };
}

export interface EmulatedQueue {
  newRecord: (...args: never[]) => StoredMessage;
  changeVisibility: (receiptHandle: string, visibilityTimeout: unknown) => boolean;
}

export function countReceivesAsSqsDoes(queue: EmulatedQueue): void {
  // Weak: a deleted message leaves the emulator's list and may be collected.
  const messages = new Set<WeakRef<StoredMessage>>();
  const receiveCount = (m: StoredMessage) => Number(m.record.attributes.ApproximateReceiveCount ?? 0);

  const newRecord = queue.newRecord;
  queue.newRecord = (...args) => {
    const message = newRecord(...args);
    messages.add(new WeakRef(message));
    return message;
  };

  const changeVisibility = queue.changeVisibility.bind(queue);
  queue.changeVisibility = (receiptHandle, visibilityTimeout) => {
    const before = new Map<StoredMessage, number>();
    for (const ref of messages) {
      const message = ref.deref();
      if (message) before.set(message, receiveCount(message));
      else messages.delete(ref);
    }
    const changed = changeVisibility(receiptHandle, visibilityTimeout);
    for (const [message, count] of before) {
      if (receiveCount(message) > count) message.record.attributes.ApproximateReceiveCount = String(count);
    }
    return changed;
  };
}
