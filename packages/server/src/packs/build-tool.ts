import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { err, messageOf, ok, type PackIndex, type Result } from '@kindgi/protocol';

/** Why a pack of another language could not be built or indexed: one line, and each problem with its file. */
export interface PackBuildFailure {
  message: string;
  problems: { code: string; file?: string; message: string }[];
}

/** How a build tool (Maven, `java`, `python`) ended: its exit code (127 when it could not start) and output. */
export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

const MAX_TOOL_OUTPUT = 16 * 1024 * 1024;

/** Runs a build tool to its end; never rejects: a tool that cannot start ends with code 127 and says why. */
export function runTool(program: string, args: string[], cwd: string): Promise<ToolRun> {
  return new Promise((resolve) => {
    execFile(program, args, { cwd, maxBuffer: MAX_TOOL_OUTPUT, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
      resolve({ code, stdout, stderr: stderr || (error && code === 127 ? error.message : '') });
    });
  });
}

/** An indexer's error report (kindgi-index's, and the SDKs' `index --json`): one error, every failing file in it. */
export interface IndexErrorReport {
  code: string;
  message: string;
  file?: string;
  fileErrors?: PackBuildFailure['problems'];
}

/** An indexer's error report as one line, and each problem with its file. */
export function failureOfReport(report: IndexErrorReport): PackBuildFailure {
  const { code, message, file, fileErrors } = report;
  const problems = fileErrors ?? [{ code, message, ...(file === undefined ? {} : { file }) }];
  const detail = fileErrors ? fileErrors.map((p) => `${p.code}: ${p.message}`).join('; ') : message;
  return { message: `${code}: ${detail}`, problems };
}

/**
 * The failure of an SDK's `index --json` (Java's `Main index`, `python -m kindgi.pack index`): its JSON report,
 * else `fallback` (the process died before it could report: its stderr says why).
 */
export function indexReportFailure(run: ToolRun, fallback: string): PackBuildFailure {
  try {
    const report = JSON.parse(run.stdout) as { error?: IndexErrorReport };
    if (report.error) return failureOfReport(report.error);
  } catch {
    // Not the JSON report: the fallback carries the process's own words.
  }
  const message = `index-failed: ${fallback}`;
  return { message, problems: [{ code: 'index-failed', message }] };
}

/** The index an SDK's indexer wrote to `indexPath`. */
export function readIndexFile(indexPath: string): Result<PackIndex, PackBuildFailure> {
  try {
    return ok(JSON.parse(readFileSync(indexPath, 'utf8')) as PackIndex);
  } catch (cause) {
    const message = `cannot read ${indexPath}: ${messageOf(cause)}`;
    return err({ message, problems: [{ code: 'output-write-failed', file: indexPath, message }] });
  }
}
