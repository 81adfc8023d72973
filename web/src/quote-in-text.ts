/** Lower-case words, punctuation and spacing aside: how a quote is compared with a text. */
function wordsOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .trim();
}

/**
 * True when `text` already says `quote` word for word. A research brief's claim is often the very
 * sentence its evidence quotes: showing the quote under it again would print the claim twice.
 */
export function textSaysQuote(text: string, quote: string): boolean {
  const needle = wordsOf(quote);
  return needle !== '' && ` ${wordsOf(text)} `.includes(` ${needle} `);
}
