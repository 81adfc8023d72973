import { clock } from '../format.ts';
import type { Player } from '../player/playback.ts';

/** Each citation a link to the moment it cites: activating it plays the recording from there. */
export function Citations({ at, player }: { at: number[]; player: Player }) {
  if (at.length === 0) return null;
  return (
    <span class="citations">
      {at.map((ms) => (
        <a
          key={ms}
          href={`#t=${ms}`}
          class="citation"
          onClick={(event) => {
            event.preventDefault();
            player.playFrom(ms);
          }}
        >
          <span class="visually-hidden">Play the cited moment at </span>
          {clock(ms)}
        </a>
      ))}
    </span>
  );
}
