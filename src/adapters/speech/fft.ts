/**
 * The FFT both audio analysers use (the diarizer's MFCCs and pitch, the speech-presence check's
 * bands): they run it several times per 10 ms of audio, so its tables are made once per size.
 */

interface FftTables {
  /** Index each position swaps with (bit reversal), or itself. */
  reversed: Uint32Array;
  /** cos and -sin of 2πk/n for k < n/2: every stage's twiddles are a stride through these. */
  cos: Float64Array;
  sin: Float64Array;
}

const tablesBySize = new Map<number, FftTables>();

function tablesFor(n: number): FftTables {
  const known = tablesBySize.get(n);
  if (known) return known;
  if (n < 2 || (n & (n - 1)) !== 0) throw new RangeError(`FFT size must be a power of two, got ${n}`);
  const reversed = new Uint32Array(n);
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    reversed[i] = j;
  }
  const cos = new Float64Array(n / 2);
  const sin = new Float64Array(n / 2);
  for (let k = 0; k < n / 2; k++) {
    cos[k] = Math.cos((2 * Math.PI * k) / n);
    sin[k] = -Math.sin((2 * Math.PI * k) / n);
  }
  const tables = { reversed, cos, sin };
  tablesBySize.set(n, tables);
  return tables;
}

/** In-place iterative radix-2 FFT; `re.length` must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  const { reversed, cos, sin } = tablesFor(n);
  for (let i = 1; i < n; i++) {
    const j = reversed[i] as number;
    if (i < j) {
      const tr = re[i] as number;
      re[i] = re[j] as number;
      re[j] = tr;
      const ti = im[i] as number;
      im[i] = im[j] as number;
      im[j] = ti;
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const half = size >> 1;
    const stride = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * stride] as number;
        const wi = sin[k * stride] as number;
        const a = start + k;
        const b = a + half;
        const rb = re[b] as number;
        const ib = im[b] as number;
        const br = rb * wr - ib * wi;
        const bi = rb * wi + ib * wr;
        const ra = re[a] as number;
        const ia = im[a] as number;
        re[b] = ra - br;
        im[b] = ia - bi;
        re[a] = ra + br;
        im[a] = ia + bi;
      }
    }
  }
}
