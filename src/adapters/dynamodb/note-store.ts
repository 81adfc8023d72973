import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isInFlight, type Job, type JobKind, type JobWait } from '../../domain/job.ts';
import type { AudioInfo, Note, NoteChanges, NoteState } from '../../domain/note.ts';
import { changedNote } from '../../domain/note-changes.ts';
import type { NotePage, NoteStore, NoteWithItems, ScheduledDeletion } from '../../ports/note-store.ts';
import { batchGetAll } from './batch.ts';
import { isConditionalCheckFailed, queryAllItems, withoutKeys, writeIf } from './client.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { GSI1, IN_FLIGHT_JOB_PARTITIONS, jobItemPattern, keys, notesByState } from './keys.ts';

export class DynamoNoteStore implements NoteStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createNoteIfAbsent(note: Note): Promise<{ note: Note; created: boolean }> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: this.noteItem({ ...note, version: 1 }),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return { note: { ...note, version: 1 }, created: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const existing = await this.getNote(note.account_id, note.note_id);
      if (!existing) throw error;
      return { note: existing, created: false };
    }
  }

  async getNote(accountId: string, noteId: string): Promise<Note | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.note(accountId, noteId), ConsistentRead: true }),
    );
    return Item ? withoutKeys<Note>(Item) : null;
  }

  async getNoteWithItems(accountId: string, noteId: string): Promise<NoteWithItems | null> {
    const { pk, skPrefix } = keys.noteItemsPrefix(accountId, noteId);
    const sortKeys = keys.noteItemSortKeys(noteId);
    let note: Note | null = null;
    const jobs = new Map<JobKind, Job>();
    const collectionIds: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          // The note's index entry comes too (a filter cannot name the sort key) and is skipped.
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const sk = String(item.sk);
        if (sk === sortKeys.note) note = withoutKeys<Note>(item);
        else if (sk.startsWith(sortKeys.jobPrefix)) {
          const job = withoutKeys<Job>(item);
          jobs.set(job.kind, job);
        } else if (sk.startsWith(sortKeys.filingPrefix)) collectionIds.push(String(item.collection_id));
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return note ? { note, jobs, collectionIds } : null;
  }

  async listNotes(
    accountId: string,
    state: NoteState,
    limit: number,
    cursor: string | undefined,
  ): Promise<NotePage> {
    const { Items = [], LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: GSI1,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': notesByState(accountId, state) },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey:
          cursor === undefined
            ? undefined
            : decodeCursor(
                cursor,
                (noteId) => ({ ...keys.note(accountId, noteId), gsi1pk: notesByState(accountId, state) }),
                'listNotes',
              ),
      }),
    );
    return {
      notes: Items.map((item) => withoutKeys<Note>(item)),
      nextCursor: LastEvaluatedKey ? encodeCursor(LastEvaluatedKey) : null,
    };
  }

  async updateNote(
    accountId: string,
    noteId: string,
    changes: NoteChanges,
    now: number,
  ): Promise<Note | null> {
    const current = await this.getNote(accountId, noteId);
    if (!current) return null;
    return (
      (await this.updateNoteIf(current, changes, now)) ?? this.updateNote(accountId, noteId, changes, now)
    );
  }

  async updateNoteIf(expected: Note, changes: NoteChanges, now: number): Promise<Note | null> {
    const next = changedNote(expected, changes, now);
    return (await this.replaceNote(expected, next)) ? { ...next, version: nextVersion(expected) } : null;
  }

  async setAudio(
    accountId: string,
    noteId: string,
    audio: AudioInfo | null,
    now: number,
  ): Promise<Note | null> {
    const current = await this.getNote(accountId, noteId);
    if (!current) return null;
    const next: Note = { ...current, audio, updated_at: now };
    return (await this.replaceNote(current, next))
      ? { ...next, version: nextVersion(current) }
      : this.setAudio(accountId, noteId, audio, now);
  }

  async deleteNoteItems(accountId: string, noteId: string): Promise<void> {
    const { pk, skPrefix } = keys.noteItemsPrefix(accountId, noteId);
    let startKey: Record<string, unknown> | undefined;
    const noteKey = keys.note(accountId, noteId);
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
          ProjectionExpression: 'pk, sk',
          ExclusiveStartKey: startKey,
        }),
      );
      // The note item goes last: if deletion is interrupted, the note is still there to delete again.
      for (const item of page.Items ?? []) {
        if (item.sk === noteKey.sk) continue;
        await this.db.send(
          new DeleteCommand({ TableName: this.tableName, Key: { pk: item.pk, sk: item.sk } }),
        );
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: noteKey }));
  }

  async getJob(accountId: string, noteId: string, kind: JobKind): Promise<Job | null> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.job(accountId, noteId, kind),
        ConsistentRead: true,
      }),
    );
    return Item ? withoutKeys<Job>(Item) : null;
  }

  async getJobs(accountId: string, noteIds: string[], kind: JobKind): Promise<Map<string, Job>> {
    const items = await batchGetAll(
      this.db,
      this.tableName,
      noteIds.map((id) => keys.job(accountId, id, kind)),
    );
    return new Map(items.map((item) => withoutKeys<Job>(item)).map((job) => [job.note_id, job]));
  }

  async getNotes(accountId: string, noteIds: string[]): Promise<Map<string, Note>> {
    const items = await batchGetAll(
      this.db,
      this.tableName,
      noteIds.map((id) => keys.note(accountId, id)),
    );
    return new Map(items.map((item) => withoutKeys<Note>(item)).map((note) => [note.note_id, note]));
  }

  async getNotesWithJobs(
    accountId: string,
    noteIds: string[],
    kind: JobKind,
  ): Promise<{ notes: Map<string, Note>; jobs: Map<string, Job> }> {
    const items = await batchGetAll(
      this.db,
      this.tableName,
      noteIds.flatMap((id) => [keys.note(accountId, id), keys.job(accountId, id, kind)]),
    );
    const notes = new Map<string, Note>();
    const jobs = new Map<string, Job>();
    for (const item of items) {
      if (item.sk === keys.note(accountId, String(item.note_id)).sk) {
        const note = withoutKeys<Note>(item);
        notes.set(note.note_id, note);
      } else {
        const job = withoutKeys<Job>(item);
        jobs.set(job.note_id, job);
      }
    }
    return { notes, jobs };
  }

  async createJobIfAbsent(job: Job): Promise<{ job: Job; created: boolean }> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: jobItem(job),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return { job, created: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const existing = await this.getJob(job.account_id, job.note_id, job.kind);
      if (!existing) throw error;
      return { job: existing, created: false };
    }
  }

  async replaceJob(expected: Job, next: Job): Promise<boolean> {
    return writeIf(
      this.db,
      new PutCommand({
        TableName: this.tableName,
        Item: jobItem(next),
        ConditionExpression: '#status = :status AND updated_at = :updatedAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': expected.status, ':updatedAt': expected.updated_at },
      }),
    );
  }

  async updateJobStage(
    held: Job,
    stage: string,
    now: number,
    progress?: number,
    waiting?: JobWait,
  ): Promise<boolean> {
    const values: Record<string, unknown> = { ':stage': stage, ':now': now };
    const set = ['stage = :stage', 'updated_at = :now'];
    const remove: string[] = [];
    // A stage without a known progress (or wait) must not keep the previous stage's figure.
    if (progress === undefined) remove.push('progress');
    else {
      set.push('progress = :progress');
      values[':progress'] = Math.round(progress * 1000) / 1000;
    }
    if (waiting === undefined) remove.push('waiting');
    else {
      set.push('waiting = :waiting');
      values[':waiting'] = waiting;
    }
    const removed = remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : '';
    return this.updateHeldJob(held, `SET ${set.join(', ')}${removed}`, values);
  }

  async renewLease(held: Job, until: number): Promise<boolean> {
    return this.updateHeldJob(held, 'SET lease_expires_at = :until', { ':until': until });
  }

  /**
   * The jobs still queued or processing, across accounts. Only the local runtime's start-up recovery
   * uses it (a full scan: on AWS, SQS keeps the work instead).
   */
  async *scanInFlightJobs(): AsyncIterable<Job> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression:
            'begins_with(pk, :account) AND contains(sk, :job) AND #status IN (:queued, :processing)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':account': jobItemPattern.pkPrefix,
            ':job': jobItemPattern.skContains,
            ':queued': 'queued',
            ':processing': 'processing',
          },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) yield withoutKeys<Job>(item);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  /**
   * The jobs queued or processing, from the sparse in-flight index (no scan): what the reconciler on
   * AWS reads. Jobs last written before the index existed are not in it until their next change.
   */
  async *inFlightJobs(): AsyncIterable<Job> {
    for (const partition of IN_FLIGHT_JOB_PARTITIONS) {
      yield* queryAllItems<Job>(this.db, {
        TableName: this.tableName,
        IndexName: GSI1,
        KeyConditionExpression: 'gsi1pk = :inFlight',
        ExpressionAttributeValues: { ':inFlight': partition },
      });
    }
  }

  /**
   * An update fenced by the attempt (number and job creation time): only the worker that claimed this
   * attempt of this job may make it.
   */
  private updateHeldJob(held: Job, update: string, values: Record<string, unknown>): Promise<boolean> {
    return writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.job(held.account_id, held.note_id, held.kind),
        UpdateExpression: update,
        ConditionExpression: '#status = :processing AND attempts = :attempts AND created_at = :createdAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ...values,
          ':processing': 'processing',
          ':attempts': held.attempts,
          ':createdAt': held.created_at,
        },
      }),
    );
  }

  async deleteJob(expected: Job): Promise<boolean> {
    return writeIf(
      this.db,
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.job(expected.account_id, expected.note_id, expected.kind),
        ConditionExpression: 'updated_at = :updatedAt',
        ExpressionAttributeValues: { ':updatedAt': expected.updated_at },
      }),
    );
  }

  async scheduleDeletion(deletion: ScheduledDeletion): Promise<void> {
    const { accountId, noteId, deletesAt } = deletion;
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.scheduledDeletion(deletesAt, accountId, noteId),
          account_id: accountId,
          note_id: noteId,
          deletes_at: deletesAt,
        },
      }),
    );
  }

  async *deletionsDue(now: number): AsyncIterable<ScheduledDeletion> {
    const { pk, skBelow } = keys.scheduledDeletionsDue(now);
    const items = queryAllItems<{ account_id: string; note_id: string; deletes_at: number }>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk < :below',
      ExpressionAttributeValues: { ':pk': pk, ':below': skBelow },
    });
    for await (const item of items) {
      yield { accountId: item.account_id, noteId: item.note_id, deletesAt: item.deletes_at };
    }
  }

  async forgetDeletion(deletion: ScheduledDeletion): Promise<void> {
    const { accountId, noteId, deletesAt } = deletion;
    await this.db.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.scheduledDeletion(deletesAt, accountId, noteId),
      }),
    );
  }

  private noteItem(note: Note): Record<string, unknown> {
    return {
      ...keys.note(note.account_id, note.note_id),
      ...keys.noteIndex(note.account_id, note.state, note.created_at, note.note_id),
      ...note,
    };
  }

  /**
   * Optimistic write of a whole note, fenced by its version (a timestamp could repeat within one
   * millisecond and let two writers through). The index keys follow the state, so they are rewritten.
   */
  private replaceNote(current: Note, next: Note): Promise<boolean> {
    const fence =
      current.version === undefined
        ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#version)' }
        : {
            ConditionExpression: '#version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          };
    return writeIf(
      this.db,
      new PutCommand({
        TableName: this.tableName,
        Item: this.noteItem({ ...next, version: nextVersion(current) }),
        ExpressionAttributeNames: { '#version': 'version' },
        ...fence,
      }),
    );
  }
}

/** A job item: while in flight it is also in the sparse in-flight index (keys.inFlightJobIndex). */
function jobItem(job: Job): Record<string, unknown> {
  return {
    ...keys.job(job.account_id, job.note_id, job.kind),
    ...(isInFlight(job) ? keys.inFlightJobIndex(job.account_id, job.note_id, job.kind) : {}),
    ...job,
  };
}

function nextVersion(note: Note): number {
  return (note.version ?? 0) + 1;
}
