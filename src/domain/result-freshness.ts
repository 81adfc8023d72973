import type { Collection } from './collection.ts';
import {
  type InstructionsUsed,
  instructionsChanged,
  instructionsOf,
  instructionsUsed,
  type MadeWithInstructions,
} from './collection-instructions.ts';
import type { Job } from './job.ts';
import { type MadeFromTranscript, type RevisionState, withRevisionState } from './transcript-freshness.ts';

/** Why a result reads as outdated. */
export type OutdatedReason = 'transcript' | 'instructions';

export interface Freshness extends RevisionState {
  /** Empty when the result is current. */
  outdated_reasons: OutdatedReason[];
  collection_instructions: InstructionsUsed | null;
}

type Stored = MadeFromTranscript & MadeWithInstructions;

/** A stored result as shown: without what is recorded only to compare, with its freshness. */
export type Shown<T extends Stored> = Omit<
  T,
  'transcript_recognition' | 'instructions' | 'instructions_followed'
> &
  Freshness;

/**
 * A stored result (Insights, an artifact) as the API shows it: whether it is older than the
 * transcript (src/domain/transcript-freshness.ts) or than the instructions of the collections the
 * note is filed in now (`filed`, src/domain/collection-instructions.ts), and which instructions it
 * was made with. What is recorded only to compare is left out.
 */
export function withFreshness<T extends Stored>(
  result: T,
  transcriptionJob: Job | null,
  filed: readonly Collection[],
): Shown<T> {
  const { instructions, instructions_followed: _followed, ...rest } = result;
  const revision = withRevisionState(rest, transcriptionJob);
  const reasons: OutdatedReason[] = [];
  if (revision.outdated) reasons.push('transcript');
  if (instructionsChanged(instructions, instructionsOf(filed))) reasons.push('instructions');
  // `revision` is `result` less the fields named in Shown (TypeScript cannot see through the two Omits).
  return {
    ...(revision as Omit<T, 'transcript_recognition' | 'instructions' | 'instructions_followed'> &
      typeof revision),
    outdated: reasons.length > 0,
    outdated_reasons: reasons,
    collection_instructions: instructionsUsed(result, filed),
  };
}
