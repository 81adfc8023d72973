/** The part of `stopword` (which ships no types) that the service uses. */
declare module 'stopword' {
  /** English stop words, lower case. */
  export const eng: readonly string[];
}
