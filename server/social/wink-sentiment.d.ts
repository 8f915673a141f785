/** wink-sentiment ships no types: the one call analysis.ts makes, as its README documents it. */
declare module 'wink-sentiment' {
  export default function sentiment(phrase: string): { score: number; normalizedScore: number };
}
