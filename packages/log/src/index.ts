export {
  createLog,
  type Log,
  type LogDestination,
  type LogFormat,
  type LogLayout,
  type LogOptions,
} from './log.js';
export type { RecordShape } from './record-shape.js';
export { type BatchedLineWriter, stderrBatchedLineWriter, stderrLineWriter } from './stderr-lines.js';
