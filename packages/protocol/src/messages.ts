// The wire types of protocol v2 are generated from specs/pack-protocol.schema.json (src/generated/, by
// scripts/generate-wire.mjs): this module names them for the rest of the code base and adds what is not
// on the wire. A record type lists exactly the fields writers emit; readers keep unknown fields too.
export type {
  CallContext,
  CheckInvokeRequest,
  CheckResult,
  CheckResultMessage,
  ErrorMessage,
  HealthBody,
  InvokeRequest,
  PackInfo,
  PackMessage,
  PackRequest,
  PackResponse,
  ProtocolVersion,
  ResultMessage,
  RunTrace,
  ToolRef,
  TransportErrorBody,
  ValidationIssue,
  WireCause,
  WireErrorCode,
} from './generated/pack-protocol.types.js';

/** A JSON value as it travels on the wire. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
