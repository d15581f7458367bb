// How the S3 bench reports: the big-object table and its ratios, and docs/benchmarks/s3.md kept newest first.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { BenchRatio } from '@kindgi/test-services/bench-kit';

/** Seconds and server CPU (ms) of each 256 MiB transfer of one side and direction. */
export interface BigTimes {
  seconds: number[];
  cpuMs: number[];
}

/** What the big-object part measured. */
export interface BigResult {
  bytes: number;
  times: { s3Put: BigTimes; s3Get: BigTimes; rawPut: BigTimes; rawGet: BigTimes };
  s3Stats: { baselineRss: number; peakRss: number };
  rawStats: { baselineRss: number; peakRss: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const f = (n: number) => n.toFixed(1);

/** The big-object table (median of the rounds) and the ratios `pnpm bench` summarises. */
export function bigReport(big: BigResult): { section: string; ratios: BenchRatio[] } {
  const rate = (side: BigTimes) => big.bytes / 1024 / 1024 / median(side.seconds);
  const cpu = (side: BigTimes) => median(side.cpuMs);
  const { s3Put, s3Get, rawPut, rawGet } = big.times;
  const growth = (big.s3Stats.peakRss - big.s3Stats.baselineRss) / 1024 / 1024;
  const rawGrowth = (big.rawStats.peakRss - big.rawStats.baselineRss) / 1024 / 1024;
  const putRatio = rate(s3Put) / rate(rawPut);
  const getRatio = rate(s3Get) / rate(rawGet);
  const rounds = s3Put.seconds.length;
  const section = `### 256 MiB object, curl on presigned URLs (median of ${rounds} alternating rounds)

| | PUT MiB/s | GET MiB/s | server CPU ms per PUT | server CPU ms per GET | server peak RSS growth |
|---|---|---|---|---|---|
| raw node:http floor (stream to file + fsync / file back) | ${f(rate(rawPut))} | ${f(rate(rawGet))} | ${f(cpu(rawPut))} | ${f(cpu(rawGet))} | ${f(rawGrowth)} MiB |
| Kindgi /s3 (SigV4, MD5 + SHA-256, fsync, fs binding) | ${f(rate(s3Put))} | ${f(rate(s3Get))} | ${f(cpu(s3Put))} | ${f(cpu(s3Get))} | ${f(growth)} MiB |
| ratio (PUT ≥ 0.7, goal 0.8; GET ≥ 0.9, goal 0.95) | ${putRatio.toFixed(2)} | ${getRatio.toFixed(2)} | ${(cpu(s3Put) / cpu(rawPut)).toFixed(2)} | ${(cpu(s3Get) / cpu(rawGet)).toFixed(2)} | under 64 MiB |

Every round: seconds per transfer ours ${s3Put.seconds.map((s) => s.toFixed(2)).join(', ')} (PUT),
${s3Get.seconds.map((s) => s.toFixed(2)).join(', ')} (GET); raw ${rawPut.seconds.map((s) => s.toFixed(2)).join(', ')} (PUT),
${rawGet.seconds.map((s) => s.toFixed(2)).join(', ')} (GET).
`;
  const ratios: BenchRatio[] = [
    {
      name: 'PUT 256 MiB vs raw node:http',
      value: putRatio,
      goal: 0.7,
      direction: 'atLeast',
      detail: `${f(rate(s3Put))} vs ${f(rate(rawPut))} MiB/s`,
    },
    {
      name: 'GET 256 MiB vs raw node:http',
      value: getRatio,
      goal: 0.9,
      direction: 'atLeast',
      detail: `${f(rate(s3Get))} vs ${f(rate(rawGet))} MiB/s`,
    },
    {
      name: 'server RSS growth, MiB',
      value: growth,
      goal: 64,
      direction: 'atMost',
      detail: `raw floor ${f(rawGrowth)} MiB`,
    },
  ];
  return { section, ratios };
}

const LATEST = '<!-- s3-bench: the latest run, written by the bench -->';
const EARLIER = '<!-- s3-bench: earlier runs, newest first -->';
const TITLE = '# S3 surface benchmark';

/**
 * Writes `run` as the latest section of the report, moving the previous latest section to the top of the
 * earlier runs; a report from before these markers becomes the earlier runs whole.
 */
export function writeReport(file: string, run: string): void {
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let earlier: string;
  const at = old.indexOf(LATEST);
  const split = old.indexOf(EARLIER);
  if (at >= 0 && split > at) {
    const previous = old.slice(at + LATEST.length, split).trim();
    const rest = old
      .slice(split + EARLIER.length)
      .trim()
      .replace(/^# Earlier runs\s*/, '');
    earlier = `${previous}\n\n${rest}`.trim();
  } else {
    // Demote the old report's own headings one level, so it sits under "Earlier runs".
    earlier = old
      .trim()
      .replace(/^# S3 surface benchmark\s*/, '')
      .replace(/^(#{1,5}) /gm, '#$1 ');
  }
  const intro = 'Newest run first; every figure is a ratio taken within one run.';
  const text = `${TITLE}\n\n${intro}\n\n${LATEST}\n\n${run.trim()}\n\n${EARLIER}\n\n# Earlier runs\n\n${earlier}\n`;
  writeFileSync(file, text);
}
