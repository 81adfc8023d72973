// The part of autocannon 9's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    maxOverallRequests?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
  }

  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }

  export interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    on(
      event: 'response',
      listener: (client: unknown, status: number, bytes: number, ms: number) => void,
    ): this;
  }

  export default function autocannon(options: Options): Instance;
}
