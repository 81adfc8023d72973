/**
 * A recording made in a browser (MediaRecorder's WebM) has no duration in its header: the element
 * says Infinity until it has read to the end. A seek far past the end makes it read there and learn
 * the duration; the recording is then put back at its start. `done` is called once it is back (also
 * when the browser learnt nothing, so the player is never left waiting). Returns a cancel.
 */
export function probeDuration(media: HTMLMediaElement, done: () => void): () => void {
  let returning = false;
  const onChange = () => {
    if (returning || (!Number.isFinite(media.duration) && media.seeking)) return;
    returning = true;
    media.currentTime = 0;
  };
  const onSeeked = () => {
    if (!returning) onChange();
    else if (!media.seeking) {
      cancel();
      done();
    }
  };
  const cancel = () => {
    media.removeEventListener('durationchange', onChange);
    media.removeEventListener('seeked', onSeeked);
  };
  media.addEventListener('durationchange', onChange);
  media.addEventListener('seeked', onSeeked);
  media.currentTime = Number.MAX_SAFE_INTEGER;
  return cancel;
}
