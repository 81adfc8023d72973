import { describe, expect, it } from 'vitest';
import { ownerAndDueWords } from '../../web/src/action-item-words.ts';
import { withAppTimes } from '../../web/src/answer-times.ts';
import { madeBy } from '../../web/src/engine-words.ts';
import { when } from '../../web/src/format.ts';
import { jobStageLabel } from '../../web/src/job-stage.ts';
import { noticeWords } from '../../web/src/notice-words.ts';
import { permissionWords } from '../../web/src/permission-words.ts';
import {
  deletionWords,
  historyWords,
  periodWords,
  retentionEffect,
  trashMomentWords,
} from '../../web/src/retention-words.ts';
import { type AccountSession, browserWords, signedInWords, whereWords } from '../../web/src/session-words.ts';
import { roughly, timeLeft } from '../../web/src/time-left.ts';

describe('the web app says things in plain words', () => {
  it('says who made a result instead of the engine’s name', () => {
    expect(madeBy('local-extractive')).toBe('Picked from the transcript on this computer (no AI model)');
    expect(madeBy('local-extractive+flite')).toBe(
      'Picked from the transcript on this computer (no AI model); voices synthesised on this computer',
    );
    expect(madeBy('bedrock:anthropic.claude+polly')).toBe(
      'Written by an AI model on Amazon Bedrock; voices by Amazon Polly',
    );
    expect(madeBy('openai-compatible:llama3')).toBe('Written by your own AI model server');
    expect(madeBy('something-new')).toBe('Made by something-new');
  });

  it('explains a transcript’s notice by what the person can do in the app, never by operator settings or API operations', () => {
    const operatorWords = /NOTES_|=|deleteTranscription|submitTranscription|pocketsphinx|Whisper/;
    const serviceDetail =
      'The recogniser could not follow this recording. … NOTES_SPEECH_ENGINE=transcribe … then transcribe the note again (deleteTranscription, then submitTranscription).';
    const guessed = noticeWords({ code: 'low_confidence', detail: serviceDetail }, 0.31);
    expect(guessed).toMatch(/^The recogniser could not follow this recording \(confidence 31 %\)/);
    expect(guessed).toContain('Edit on a segment');
    expect(guessed).not.toMatch(operatorWords);
    const fallback = noticeWords(
      {
        code: 'engine_fallback',
        detail: 'Whisper could not run. This transcript was made by pocketsphinx …',
      },
      null,
    );
    expect(fallback).toContain('simpler recogniser');
    expect(fallback).not.toMatch(operatorWords);
    expect(noticeWords({ code: 'no_speech', detail: 'x' }, null)).toMatch(/^No speech was heard/);
    expect(noticeWords({ code: 'something_new', detail: 'As the service says it.' }, null)).toBe(
      'As the service says it.',
    );
  });

  it('writes the moments an answer names as the links and the player do (m:ss, h:mm:ss past an hour)', () => {
    expect(withAppTimes('From "Standup" (00:00:05): Ana: "We ship." From "Plan" (01:02:03): "Go."')).toBe(
      'From "Standup" (0:05): Ana: "We ship." From "Plan" (1:02:03): "Go."',
    );
    expect(withAppTimes('From "Review" (00:12:40): "Yes."')).toBe('From "Review" (12:40): "Yes."');
    // A time of day in the prose is not a moment of a recording.
    expect(withAppTimes('We meet at 09:30:00 on Friday.')).toBe('We meet at 09:30:00 on Friday.');
  });

  it('says what a permission allows, one or several', () => {
    expect(permissionWords(['notes:delete'])).toBe('delete notes permanently');
    expect(permissionWords(['notes:read', 'notes:write', 'notes:process'])).toBe(
      'read your notes, rename, trash and organise your notes and transcribe recordings and write summaries',
    );
  });

  it('estimates the time left from the share done and the time it took, only once a tenth is done', () => {
    const started = 1_000_000;
    expect(timeLeft({ progress: 0.05, created_at: started }, started + 60_000)).toBeNull();
    expect(timeLeft({ progress: 0.5, created_at: started }, started + 20_000)).toBe('a minute');
    expect(timeLeft({ progress: 0.25, created_at: started }, started + 120_000)).toBe('6 minutes');
    expect(timeLeft({ progress: 0.1, created_at: started }, started + 3_600_000)).toBe('9 hours');
    expect(timeLeft({ progress: 1, created_at: started }, started + 1000)).toBeNull();
    expect(timeLeft({ created_at: started }, started + 1000)).toBeNull();
  });

  it('says a wait of about one minute as "a minute", never "1 minutes", and an hour as "an hour"', () => {
    expect(roughly(30_000)).toBe('a minute');
    expect(roughly(89_000)).toBe('a minute');
    expect(roughly(91_000)).toBe('2 minutes');
    expect(roughly(3_600_000)).toBe('an hour');
    expect(roughly(5_400_000)).toBe('1.5 hours');
  });

  it('says what a waiting transcription waits for: the recordings ahead, and how long while that is known', () => {
    const job = { note_id: 'n', kind: 'transcription', status: 'processing' as const, updated_at: 0 };
    const now = 1_000_000;
    expect(jobStageLabel({ ...job, stage: 'waiting', waiting: { recordings_ahead: 1 } }, now)).toBe(
      'Waiting: 1 recording ahead',
    );
    expect(
      jobStageLabel(
        { ...job, stage: 'waiting', waiting: { recordings_ahead: 2, estimated_start_at: now + 150_000 } },
        now,
      ),
    ).toBe('Waiting: 2 recordings ahead, about 3 minutes');
    expect(
      jobStageLabel(
        { ...job, stage: 'waiting', waiting: { recordings_ahead: 1, estimated_start_at: now - 5_000 } },
        now,
      ),
    ).toBe('Waiting: 1 recording ahead, starting any moment');
  });

  it('names a browser and its system from real User-Agent strings, and keeps an unknown one short', () => {
    const agents: Record<string, string> = {
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36':
        'Chrome on Linux',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0':
        'Edge on Windows',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1':
        'Safari on iPhone',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:133.0) Gecko/20100101 Firefox/133.0':
        'Firefox on macOS',
    };
    for (const [agent, words] of Object.entries(agents)) expect(browserWords(agent)).toBe(words);
    expect(browserWords(`curl/8.5.0 ${'x'.repeat(80)}`)).toHaveLength(60);
    expect(browserWords(null)).toBeNull();
  });

  it('says what signed a session in and where it is, from this tab', () => {
    const base = {
      kind: 'app',
      client_id: 'notes-web',
      client_name: 'Notes web app',
      scopes: ['notes:read'],
      created_at: 0,
      last_used_at: 0,
      expires_at: 0,
      user_agent: null,
      browser_session_id: 'browser_1',
      current: false,
    } as const;
    const browser = {
      ...base,
      session_id: 'browser_1',
      kind: 'browser',
      browser_session_id: null,
      current: true,
    };
    const tab = { ...base, session_id: 'tab', current: true };
    const other = { ...base, session_id: 'other' };
    const all = [browser, tab, other].map((session) => ({
      ...session,
      signed_in_with: { kind: 'api_key', key_id: 'key_1', name: 'Laptop', prefix: 'svc_sk_ab12' },
    })) as unknown as AccountSession[];
    expect(signedInWords(all[1] as AccountSession)).toBe('Signed in with key “Laptop” (svc_sk_ab12…)');
    expect(all.map((session) => whereWords(session, all))).toEqual([
      'This browser',
      'This tab',
      'Another tab of this browser',
    ]);
  });

  it('says a retention period as a person says it: days, or whole years', () => {
    expect(periodWords(1)).toBe('1 day');
    expect(periodWords(30)).toBe('30 days');
    expect(periodWords(365)).toBe('1 year');
    expect(periodWords(730)).toBe('2 years');
    expect(periodWords(400)).toBe('400 days');
    expect(periodWords(3650)).toBe('10 years');
  });

  it('says what a period does with the service’s own trash period, never a “usual” one', () => {
    expect(retentionEffect('Stand-ups', 30, 14)).toEqual([
      'Notes in “Stand-ups” move to the trash 30 days after they were recorded (or restored from the trash), unless you keep them with “Keep this note” on their page.',
      'The trash keeps them 14 more days, then deletes them for good unless they are restored.',
    ]);
    // Before it is saved, what it does at once comes second.
    expect(retentionEffect('Stand-ups', 365, 14, true)).toEqual([
      'Notes in “Stand-ups” move to the trash 1 year after they were recorded (or restored from the trash), unless you keep them with “Keep this note” on their page.',
      'Notes already older than 1 year move within the hour.',
      'The trash keeps them 14 more days, then deletes them for good unless they are restored.',
    ]);
    expect(retentionEffect('Stand-ups', 7, 1)).toContain(
      'The trash keeps them 1 more day, then deletes them for good unless they are restored.',
    );
    expect(retentionEffect('Stand-ups', 7, 3650)).toContain(
      'The trash keeps them 3,650 more days, then deletes them for good unless they are restored.',
    );
    for (const effect of [retentionEffect('Stand-ups', 30, 14), retentionEffect('Stand-ups', 30, 14, true)]) {
      expect(effect.join(' ')).not.toMatch(/usual|30 more days/);
    }
  });

  it('says that notes stay when a collection keeps them forever, and what that does to notes already trashed', () => {
    expect(retentionEffect('Stand-ups', null, 14)).toEqual([
      'Notes in “Stand-ups” stay until you move them to the trash.',
    ]);
    expect(retentionEffect('Stand-ups', null, 14, true)).toEqual([
      'Notes in “Stand-ups” stay until you move them to the trash.',
      'Notes its period already moved to the trash are still deleted on their day unless restored.',
    ]);
  });

  it('says when a note moves to the trash or is deleted for good: its date, or within the hour once past', () => {
    const now = Date.UTC(2025, 5, 1, 12);
    const later = now + 3 * 86_400_000;
    expect(trashMomentWords(later, now)).toBe(`on ${when(later)}`);
    expect(trashMomentWords(now - 60_000, now)).toBe('within the hour');
    expect(trashMomentWords(now, now)).toBe('within the hour');
    expect(deletionWords(later, now)).toBe(`Deleted for good on ${when(later)} unless restored`);
    expect(deletionWords(now - 60_000, now)).toBe('Deleted for good within the hour unless restored');
  });

  it('says who did each step of a note’s history, and the deletion still to come only while it is', () => {
    const at = Date.UTC(2025, 5, 1, 12);
    const deletesAt = at + 14 * 86_400_000;
    const byRetention = {
      at,
      event: 'trashed',
      by: 'retention',
      collection: { collection_id: 'c1', name: 'Stand-ups' },
      deletes_at: deletesAt,
    } as const;
    expect(historyWords(byRetention, true)).toBe(
      `Moved to the trash by the retention of “Stand-ups” on ${when(at)}; will be deleted for good on ${when(deletesAt)}`,
    );
    // Restored since (or deleted): the deletion it announced is no longer to come.
    expect(historyWords(byRetention, false)).toBe(
      `Moved to the trash by the retention of “Stand-ups” on ${when(at)}`,
    );
    // Without the collection's name, it is "a collection".
    expect(historyWords({ ...byRetention, collection: undefined }, false)).toBe(
      `Moved to the trash by the retention of “a collection” on ${when(at)}`,
    );
    expect(historyWords({ at, event: 'restored', by: 'person' }, false)).toBe(
      `Restored by you on ${when(at)}`,
    );
    expect(historyWords({ at, event: 'protected', by: 'person' }, true)).toBe(`Kept by you on ${when(at)}`);
    expect(historyWords({ at, event: 'unprotected', by: 'person' }, false)).toBe(
      `Keep turned off by you on ${when(at)}`,
    );
  });
});

describe('an action item says who does it and by when', () => {
  it('names the owner and the due day as a calendar day, or whichever of them the Insights give', () => {
    expect(ownerAndDueWords('Tom', '2026-12-11')).toBe('Tom · by Fri, Dec 11, 2026');
    expect(ownerAndDueWords(null, '2027-01-04')).toBe('by Mon, Jan 4, 2027');
    expect(ownerAndDueWords('Maria', null)).toBe('Maria');
    expect(ownerAndDueWords('  ', undefined)).toBeNull();
    expect(ownerAndDueWords(null, 'next friday')).toBeNull();
  });
});
